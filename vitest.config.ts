import { defineConfig } from "vitest/config";

// One config for every tier: `*.unit.spec.ts` (pure), `*.int.spec.ts` (real Postgres, Redis,
// NATS started per worker by @cairn/testing), `*.e2e.spec.ts` (services as processes).
export default defineConfig({
  test: {
    include: ["**/*.spec.ts"],
    exclude: ["**/node_modules/**", ".tools/**", ".data/**"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    reporters: ["default"],
  },
});
