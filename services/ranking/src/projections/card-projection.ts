// The wiring the ranking read models that keep a card per memory share: Redis generations
// under the read model's base key, a memory event applied as the change of its card (read,
// evolved, and what the change implies written), other events applied as they come (or in
// runs, a command's recalls of one tenant together), and repair by folding a card again from
// its stream (repair-cards.ts).
import type { DecodedEvent, DecodedEventOf, EventType, ProjectionName } from "@cairn/contracts";
import { type MemoryEvent, memoryEventTypes, memoryIdOfStream } from "@cairn/memory-model";
import {
  applyEventByEvent,
  createRedisGenerations,
  type Projection,
  type RedisWrites,
  snapshotRedisPrefix,
} from "@cairn/projection-runtime";
import type { Redis } from "ioredis";
import { evolveMemoryCard, type MemoryCard, readCard } from "./memory-card/memory-card.ts";
import { repairCards } from "./repair-cards.ts";

/** What an apply step reads and writes: the read model's Redis, the event's writes, the tenant's paths. */
export type CardIo<P> = { redis: Redis; writes: RedisWrites; paths: P };

/** A card moving from what the read model held to what an event (or a repair) makes of it. */
export type CardChange = {
  before: MemoryCard | undefined;
  after: MemoryCard;
  /** The event that moved the card; in a repair, the last event of the memory's stream. */
  event: DecodedEvent;
  /** A repair: the card went straight to its stream's fold, over any number of events. */
  repair: boolean;
};

/** What the read model is kept in, and where repair reads a memory's stream. */
export type CardProjectionSettings = {
  redis: Redis;
  /** The generations' base key. */
  base: string;
  /** Reads a memory stream from the log, for repair. */
  readStream: (streamId: string) => Promise<DecodedEvent[]>;
};

/**
 * The read model's handlers of events of other streams (activity, settings), by type: their
 * effect does not depend on order. The read model handles these and every memory event.
 */
export type CardActivity<P, S> = {
  [T in EventType]?: (event: DecodedEventOf<T>, io: CardIo<P>, settings: S) => Promise<void>;
};

/**
 * Handlers of activity that is applied in runs: consecutive events of the type and of one
 * tenant in a batch (a command's recalls), in order, as one step with one commit. A single
 * event is a run of one.
 */
export type CardActivityRuns<P, S> = {
  [T in EventType]?: (events: readonly DecodedEventOf<T>[], io: CardIo<P>, settings: S) => Promise<void>;
};

export type CardHandlers<P, S> = {
  /** See `Projection.version`: what the read model holds changes with it. */
  version: string;
  /** What a card's change writes besides the card itself. */
  applyCard(io: CardIo<P>, change: CardChange, settings: S): Promise<void>;
  activity: CardActivity<P, S>;
  activityRuns?: CardActivityRuns<P, S>;
  /**
   * What a purge asks of its tenant as a whole, at `position`: after the tenant's last purge
   * of a batch, and after a repair of purged memories (at the generation's checkpoint).
   */
  afterPurge?(io: CardIo<P>, tenant: string, position: number, settings: S): Promise<void>;
};

export function cardProjection<
  P extends { card(memoryId: string): string },
  S extends CardProjectionSettings,
>(
  name: ProjectionName,
  settings: S,
  /** A tenant's paths under a generation's prefix. */
  layout: (prefix: string) => (tenant: string) => P,
  handlers: CardHandlers<P, S>,
): Projection {
  const { redis } = settings;
  const generations = createRedisGenerations(redis, settings.base, { version: handlers.version });
  const io = (generation: number, tenant: string, writes: RedisWrites): CardIo<P> => ({
    redis,
    writes,
    paths: layout(generations.prefix(generation))(tenant),
  });
  const runs = (handlers.activityRuns ?? {}) as Partial<
    Record<EventType, (events: readonly DecodedEvent[], io: CardIo<P>, settings: S) => Promise<void>>
  >;
  /** Activity events of one type and tenant, in order (a run, or one event). */
  const applyActivity = (events: readonly DecodedEvent[], at: CardIo<P>): Promise<void> => {
    const [first] = events;
    if (!first) return Promise.resolve();
    const run = runs[first.type];
    if (run) return run(events, at, settings);
    const apply = handlers.activity[first.type] as
      | ((event: DecodedEvent, io: CardIo<P>, settings: S) => Promise<void>)
      | undefined;
    return apply ? apply(first, at, settings) : Promise.resolve();
  };
  const runKey = (event: DecodedEvent) =>
    runs[event.type] ? `${event.type}\u0000${event.meta.tenant}` : null;
  const applyCard = (at: CardIo<P>, change: CardChange) => handlers.applyCard(at, change, settings);
  const purge = handlers.afterPurge;
  const afterPurge =
    purge && ((at: CardIo<P>, tenant: string, position: number) => purge(at, tenant, position, settings));
  return {
    name,
    version: handlers.version,
    handles: new Set<EventType>([
      ...memoryEventTypes,
      ...(Object.keys(handlers.activity) as EventType[]),
      ...(Object.keys(runs) as EventType[]),
    ]),
    readsText: true,
    generations,
    snapshot: (generation) => snapshotRedisPrefix(redis, generations.prefix(generation)),
    apply: (batch) => {
      const lastPurge = new Map<string, number>();
      if (afterPurge)
        for (const e of batch.events)
          if (e.type === "memory.purged") lastPurge.set(e.meta.tenant, e.position);
      return applyEventByEvent(
        generations,
        batch,
        async (events, writes, generation) => {
          const event = events[0] as DecodedEvent;
          const at = io(generation, event.meta.tenant, writes);
          if (event.streamType !== "memory") return applyActivity(events, at);
          const before = await readCard(redis, at.paths.card(memoryIdOfStream(event.streamId) as string));
          const after = evolveMemoryCard(before, event as MemoryEvent);
          await applyCard(at, { before, after, event, repair: false });
          if (afterPurge && lastPurge.get(event.meta.tenant) === event.position)
            await afterPurge(at, event.meta.tenant, event.position);
        },
        runKey,
      );
    },
    repair: (generation, events) =>
      repairCards({
        generations,
        generation,
        events,
        readStream: settings.readStream,
        cardKey: (tenant, id) => layout(generations.prefix(generation))(tenant).card(id),
        redis,
        applyActivity: (event, writes) => applyActivity([event], io(generation, event.meta.tenant, writes)),
        applyCard: (before, after, writes, event) =>
          applyCard(io(generation, after.tenant, writes), { before, after, event, repair: true }),
        afterPurge:
          afterPurge &&
          ((tenant, checkpoint, writes) => afterPurge(io(generation, tenant, writes), tenant, checkpoint)),
      }),
    probe: async () => void (await redis.ping()),
  };
}
