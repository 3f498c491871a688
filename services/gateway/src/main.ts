import { runService } from "@cairn/service-runtime";
import { Redis } from "ioredis";
import pg from "pg";
import { gatewayEnvSchema } from "./env.ts";
import { createHttpServer } from "./http-server.ts";

await runService({
  name: "gateway",
  envSchema: gatewayEnvSchema,
  async start({ env, nc, logger }) {
    const pool = new pg.Pool({ connectionString: env.CAIRN_DATABASE_URL, max: 10 });
    pool.on("error", () => {});
    const redis = new Redis(env.CAIRN_REDIS_URL, { maxRetriesPerRequest: 2 });
    redis.on("error", () => {});
    const checks = {
      postgres: async () => void (await pool.query("select 1")),
      redis: async () => void (await redis.ping()),
    };
    const app = await createHttpServer({ nc, logger, checks });
    const address = await app.listen({ host: env.CAIRN_HOST, port: env.CAIRN_PORT });
    logger.info({ address }, "gateway listening");
    return {
      checks,
      stop: async () => {
        await app.close();
        redis.disconnect();
        await pool.end();
      },
    };
  },
});
