// Applies the database migrations (infra/migrations) to CAIRN_DATABASE_URL.
import { migrateToLatest } from "@cairn/event-store";
import { baseEnvSchema, parseEnv } from "@cairn/service-runtime";

const env = parseEnv(baseEnvSchema);
try {
  const outcomes = await migrateToLatest(env.CAIRN_DATABASE_URL);
  const applied = outcomes.filter((o) => o.status === "Success").map((o) => o.name);
  console.log(
    applied.length > 0 ? `[cairn] migrations applied: ${applied.join(", ")}` : "[cairn] schema is up to date",
  );
} catch (error) {
  console.error(`[cairn] ${(error as Error).message}`);
  process.exit(1);
}
