import { CairnError, type TenantSettings } from "@cairn/contracts";
import type { ProjectionRuntime } from "@cairn/projection-runtime";
import type { Redis } from "ioredis";
import type { RankingEnv } from "../env.ts";
import { type MemoryCard, parseCards } from "../projections/memory-card/memory-card.ts";
import type { DepthSettings } from "../projections/signals/signal-math.ts";
import { parseTenantSettings } from "../projections/signals/signals-projection.ts";
import { readTransaction } from "../store/read-transaction.ts";
import { keysLayout, type ReadLayout, type rankingBases, signalsLayout } from "../store/redis-layout.ts";

export type Clock = () => Date;

/** What every query handler gets: the read models, the clock, and the settings. */
export type RankingContext = {
  redis: Redis;
  bases: ReturnType<typeof rankingBases>;
  clock: Clock;
  env: RankingEnv;
  depth: DepthSettings;
  runtime: ProjectionRuntime;
};

const projections = ["ranking.signals", "ranking.keys"] as const;

/** The serving generation of each read model, as a query reads them (one round trip). */
export async function readLayout(ctx: RankingContext): Promise<ReadLayout> {
  const [signals, keys] = await ctx.redis.mget(`${ctx.bases.signals}active`, `${ctx.bases.keys}active`);
  return {
    signals: signalsLayout(`${ctx.bases.signals}g${signals ?? 0}:`),
    keys: keysLayout(`${ctx.bases.keys}g${keys ?? 0}:`),
  };
}

/** Position every ranking projection has reached (the lowest of them). */
export async function projectionsPosition(ctx: RankingContext): Promise<number> {
  const positions = await Promise.all(projections.map((n) => ctx.runtime.positionSource(n).position()));
  return Math.min(...positions);
}

/** Read-your-writes: waits until the projections have applied `position`. */
export async function waitForPosition(ctx: RankingContext, position: number | undefined): Promise<number> {
  try {
    const reached = await ctx.runtime.waitFor(projections, position, ctx.env.CAIRN_RANKING_WAIT_MS);
    return Math.min(...Object.values(reached));
  } catch (error) {
    if (error instanceof CairnError) throw error;
    throw new CairnError("unavailable", "the ranking read models are unreachable", {
      hint: "retry shortly; the ranking service reconnects by itself",
      cause: error,
    });
  }
}

export function hubCount(ctx: RankingContext, liveMemories: number): number {
  return Math.max(
    ctx.env.CAIRN_RANKING_HUB_MIN_LINKS,
    Math.ceil(ctx.env.CAIRN_RANKING_HUB_FRACTION * liveMemories),
  );
}

/**
 * A query's context: the service's, with the position its read models have reached and the
 * serving generations it reads.
 */
export type RequestContext = RankingContext & { layout: ReadLayout; position: number };

/** What expansion and re-ranking read of a tenant first: its settings and live memory count. */
export type TenantView = { settings: TenantSettings; live: number };

/**
 * The serving signals generation each Redis client last found. A tenant's view is read from it
 * with plain commands, in one transaction with the serving pointers; when they say a rebuild
 * switched generations meanwhile, it is read again from the one now serving. (A script that
 * read the pointers first and the cards after cost Redis twice as long: each card passed
 * through Lua.)
 */
const lastServing = new WeakMap<Redis, string>();

/** How many switches in a row a view's read follows before it gives up (one is already rare). */
const maxSwitchesFollowed = 3;

/**
 * Waits for `afterPosition` first, then reads which generations serve: a read model rebuilt or
 * created while the query waited is the one it reads.
 */
export async function withLayout(
  ctx: RankingContext,
  request: { afterPosition?: number | undefined },
): Promise<RequestContext> {
  const position = await waitForPosition(ctx, request.afterPosition);
  return { ...ctx, position, layout: await readLayout(ctx) };
}

/** `withLayout` and the tenant's view, read in the same round trip as the layout. */
export async function withTenantView(
  ctx: RankingContext,
  request: { afterPosition?: number | undefined; principal: { tenant: string } },
): Promise<RequestContext & { tenant: TenantView }> {
  return (await withTenantCards(ctx, request, [])).context;
}

/**
 * `withTenantView` and the cards of these memories in the serving generation, all in one round
 * trip (re-ranking reads its candidates' cards before anything else).
 */
export async function withTenantCards(
  ctx: RankingContext,
  request: { afterPosition?: number | undefined; principal: { tenant: string } },
  ids: readonly string[],
): Promise<{ context: RequestContext & { tenant: TenantView }; cards: Map<string, MemoryCard> }> {
  const position = await waitForPosition(ctx, request.afterPosition);
  // The paths inside a generation, as the layout names them (an empty generation prefix).
  const inside = signalsLayout("")(request.principal.tenant);
  const paths = [inside.settings, inside.liveCount, ...ids.map(inside.card)];
  let serving = lastServing.get(ctx.redis) ?? "0";
  for (let switches = 0; ; switches += 1) {
    const prefix = `${ctx.bases.signals}g${serving}:`;
    const [signals, keys, values] = (await readTransaction(
      ctx.redis
        .multi()
        .get(`${ctx.bases.signals}active`)
        .get(`${ctx.bases.keys}active`)
        .mget(...paths.map((path) => prefix + path)),
    )) as [string | null, string | null, (string | null)[]];
    const found = signals ?? "0";
    lastServing.set(ctx.redis, found);
    if (found === serving) {
      const [settings, live, ...cards] = values;
      return {
        context: {
          ...ctx,
          position,
          layout: {
            signals: signalsLayout(prefix),
            keys: keysLayout(`${ctx.bases.keys}g${keys ?? 0}:`),
          },
          tenant: { settings: parseTenantSettings(settings ?? null), live: Number(live ?? 0) },
        },
        cards: parseCards(ids, cards),
      };
    }
    if (switches === maxSwitchesFollowed)
      throw new CairnError(
        "unavailable",
        "the ranking read model kept switching generations while it was read",
        {
          hint: "retry shortly",
        },
      );
    serving = found;
  }
}
