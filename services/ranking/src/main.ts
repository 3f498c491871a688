import { runService } from "@cairn/service-runtime";
import { Redis } from "ioredis";
import { rankingEnvSchema } from "./env.ts";

await runService({
  name: "ranking",
  envSchema: rankingEnvSchema,
  async start({ env }) {
    const redis = new Redis(env.CAIRN_REDIS_URL, { maxRetriesPerRequest: 2 });
    redis.on("error", () => {});
    return {
      checks: { redis: async () => void (await redis.ping()) },
      stop: async () => {
        redis.disconnect();
      },
    };
  },
});
