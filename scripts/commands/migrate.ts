import { migrateToLatest } from "@cairn/event-store";
import { baseEnvSchema, parseEnv } from "@cairn/service-runtime";

export const summary = "apply database migrations to CAIRN_DATABASE_URL";

export async function run(args: string[]): Promise<number> {
  if (args.includes("--help")) {
    console.log(
      "usage: pnpm cairn migrate\n\nApplies the migrations in infra/migrations to CAIRN_DATABASE_URL.",
    );
    return 0;
  }
  const env = parseEnv(baseEnvSchema);
  const outcomes = await migrateToLatest(env.CAIRN_DATABASE_URL);
  const applied = outcomes.filter((o) => o.status === "Success").map((o) => o.name);
  console.log(applied.length > 0 ? `migrations applied: ${applied.join(", ")}` : "schema is up to date");
  return 0;
}
