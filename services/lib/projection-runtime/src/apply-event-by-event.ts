// A Redis projection that reads what it needs before each write (counters, cards, a key graph)
// applies a batch one event at a time: each event's writes go with the checkpoint at that
// event in their own compare-and-set, so the next event reads what the one before wrote.
// An event its fold refuses writes nothing and only moves the checkpoint.
import type { DecodedEvent } from "@cairn/contracts";
import { isMemoryFoldError } from "@cairn/memory-model";
import type { ApplyResult, ProjectionBatch, RefusedEvent } from "./projection.ts";
import type { RedisGenerations } from "./redis-generations.ts";
import { RedisWrites } from "./redis-writes.ts";

export async function applyEventByEvent(
  generations: RedisGenerations,
  batch: ProjectionBatch,
  applyOne: (event: DecodedEvent, writes: RedisWrites, generation: number) => Promise<void>,
): Promise<ApplyResult> {
  const refused: RefusedEvent[] = [];
  let checkpoint = batch.expected;
  for (const event of batch.events) {
    const writes = new RedisWrites();
    try {
      await applyOne(event, writes, batch.generation);
    } catch (error) {
      if (!isMemoryFoldError(error)) throw error;
      refused.push({ event, reason: "cannot_apply", error: error.message });
      writes.commands.length = 0;
    }
    const outcome = await generations.commit(
      batch.generation,
      batch.writer,
      checkpoint,
      event.position,
      writes.commands,
    );
    if (outcome !== "ok") return { outcome, refused: refused.filter((r) => r.event !== event), checkpoint };
    checkpoint = event.position;
  }
  if (checkpoint < batch.next) {
    const outcome = await generations.commit(batch.generation, batch.writer, checkpoint, batch.next, []);
    if (outcome !== "ok") return { outcome, refused, checkpoint };
  }
  return { outcome: "ok", refused };
}
