import { runService } from "@cairn/service-runtime";
import pg from "pg";
import { ingestEnvSchema } from "./env.ts";

await runService({
  name: "ingest",
  envSchema: ingestEnvSchema,
  async start({ env }) {
    const pool = new pg.Pool({ connectionString: env.CAIRN_DATABASE_URL, max: 10 });
    pool.on("error", () => {});
    return {
      checks: { postgres: async () => void (await pool.query("select 1")) },
      stop: () => pool.end(),
    };
  },
});
