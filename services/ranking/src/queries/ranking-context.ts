import { CairnError } from "@cairn/contracts";
import type { Redis } from "ioredis";
import type { RankingEnv } from "../env.ts";
import type { RunningProjection } from "../projections/run-projection.ts";
import type { DepthSettings } from "../projections/signals/signal-math.ts";
import type { RedisLayout } from "../store/redis-layout.ts";

export type Clock = () => Date;

/** What every query handler gets: the read models, the clock, and the settings. */
export type RankingContext = {
  redis: Redis;
  layout: RedisLayout;
  clock: Clock;
  env: RankingEnv;
  depth: DepthSettings;
  projections: RunningProjection[];
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Position every ranking projection has reached (the lowest of them). */
export async function projectionsPosition(ctx: RankingContext): Promise<number> {
  const positions = await Promise.all(ctx.projections.map((p) => p.position()));
  return positions.length === 0 ? 0 : Math.min(...positions);
}

/** Read-your-writes: waits until the projections have applied `position`. */
export async function waitForPosition(ctx: RankingContext, position: number | undefined): Promise<number> {
  const deadline = Date.now() + ctx.env.CAIRN_RANKING_WAIT_MS;
  for (;;) {
    const reached = await projectionsPosition(ctx);
    if (position === undefined || reached >= position) return reached;
    if (Date.now() > deadline) {
      throw new CairnError("timeout", `the ranking projections have not reached position ${position}`, {
        hint: "the event stream may be behind; retry shortly",
        details: { reached, wanted: position },
      });
    }
    await sleep(20);
  }
}

export function hubCount(ctx: RankingContext, liveMemories: number): number {
  return Math.max(
    ctx.env.CAIRN_RANKING_HUB_MIN_LINKS,
    Math.ceil(ctx.env.CAIRN_RANKING_HUB_FRACTION * liveMemories),
  );
}
