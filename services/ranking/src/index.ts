// What the ranking package offers the rest of Cairn: the service, and its read models opened
// the way the service opens them (for `pnpm cairn rebuild`).
export type { RankingEnv } from "./env.ts";
export { rankingEnvSchema } from "./env.ts";
/** How key links start and grow with traversals (Hebbian reinforcement). */
export { linkWeight } from "./projections/signals/signal-math.ts";
export type { RankingServiceOptions } from "./ranking-service.ts";
export { createRankingService, openRankingProjections } from "./ranking-service.ts";
