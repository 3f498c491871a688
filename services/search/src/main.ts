import { runService } from "@cairn/service-runtime";
import { Redis } from "ioredis";
import pg from "pg";
import { searchEnvSchema } from "./env.ts";

await runService({
  name: "search",
  envSchema: searchEnvSchema,
  async start({ env }) {
    const pool = new pg.Pool({ connectionString: env.CAIRN_DATABASE_URL, max: 10 });
    pool.on("error", () => {});
    const redis = new Redis(env.CAIRN_REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 2 });
    redis.on("error", () => {});
    return {
      checks: {
        postgres: async () => void (await pool.query("select 1")),
        redis: async () => void (await redis.ping()),
      },
      stop: async () => {
        redis.disconnect();
        await pool.end();
      },
    };
  },
});
