// Repair of a ranking read model for events a dead letter held back: a memory's card is
// folded again from its whole stream in the log (up to the generation's checkpoint) and what
// the card's change implies is written, as if the card had gone straight from what the read
// model held to what the log says; activity and settings do not depend on order and are
// applied as they come. Each write is a compare-and-set on the checkpoint, as live ones are.
import type { DecodedEvent } from "@cairn/contracts";
import { isMemoryEvent, memoryIdOfStream, memoryStreamId } from "@cairn/memory-model";
import { type RedisGenerations, RedisWrites } from "@cairn/projection-runtime";
import type { Redis } from "ioredis";
import { evolveMemoryCard, type MemoryCard } from "./memory-card/memory-card.ts";

export type RepairCardsOptions = {
  generations: RedisGenerations;
  generation: number;
  events: readonly DecodedEvent[];
  /** A memory stream, decoded and with its text opened. */
  readStream: (streamId: string) => Promise<DecodedEvent[]>;
  cardKey: (tenant: string, memoryId: string) => string;
  redis: Redis;
  applyCard(
    before: MemoryCard | undefined,
    after: MemoryCard,
    writes: RedisWrites,
    last: DecodedEvent,
  ): Promise<void>;
  applyActivity(event: DecodedEvent, writes: RedisWrites): Promise<void>;
  /** What a purge asks of a tenant as a whole once its cards are repaired (up to `checkpoint`). */
  afterPurge?(tenant: string, checkpoint: number, writes: RedisWrites): Promise<void>;
};

async function commitAtCheckpoint(
  options: RepairCardsOptions,
  build: (writes: RedisWrites, checkpoint: number) => Promise<boolean>,
): Promise<void> {
  for (let attempt = 1; attempt <= 20; attempt += 1) {
    const checkpoint = await options.generations.checkpoint(options.generation);
    const writes = new RedisWrites();
    if (!(await build(writes, checkpoint))) return;
    const outcome = await options.generations.commit(
      options.generation,
      { kind: "live" },
      checkpoint,
      checkpoint,
      writes.commands,
    );
    if (outcome === "ok") return;
    await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
  }
  throw new Error("the read model kept moving while it was repaired; retry the repair");
}

export async function repairCards(options: RepairCardsOptions): Promise<void> {
  const memories = new Map<string, DecodedEvent>();
  for (const event of options.events) {
    if (event.streamType === "memory") {
      const id = memoryIdOfStream(event.streamId);
      if (id) memories.set(id, event);
    } else {
      await commitAtCheckpoint(options, async (writes) => {
        await options.applyActivity(event, writes);
        return true;
      });
    }
  }
  for (const [id, dead] of memories) {
    await commitAtCheckpoint(options, async (writes, checkpoint) => {
      const stream = (await options.readStream(memoryStreamId(id))).filter(
        (e) => isMemoryEvent(e) && e.position <= checkpoint,
      );
      let after: MemoryCard | undefined;
      for (const event of stream) if (isMemoryEvent(event)) after = evolveMemoryCard(after, event);
      if (!after) return false;
      const raw = await options.redis.get(options.cardKey(dead.meta.tenant, id));
      const before = raw === null ? undefined : (JSON.parse(raw) as MemoryCard);
      if (before?.version === after.version) return false;
      await options.applyCard(before, after, writes, stream.at(-1) as DecodedEvent);
      return true;
    });
  }
  const { afterPurge } = options;
  if (!afterPurge) return;
  const purged = new Set(options.events.filter((e) => e.type === "memory.purged").map((e) => e.meta.tenant));
  for (const tenant of purged) {
    await commitAtCheckpoint(options, async (writes, checkpoint) => {
      await afterPurge(tenant, checkpoint, writes);
      return true;
    });
  }
}
