// A Redis projection that reads what it needs before each write (counters, cards, a key graph)
// applies a batch one event at a time: each event's writes go with the checkpoint at that
// event in their own compare-and-set, so the next event reads what the one before wrote.
// An event that writes nothing (its fold refuses it, or it does not concern this read model,
// as most recalls do not concern the key graph) has no commit of its own: its position goes
// with the next commit, so a batch of recalls is not a compare-and-set per recall.
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
  // The checkpoint the read model holds: what the last commit wrote.
  let checkpoint = batch.expected;
  // Only what is committed is reported refused (the rest is applied, and refused, again).
  const committedRefusals = () => refused.filter((r) => r.event.position <= checkpoint);
  for (const event of batch.events) {
    const writes = new RedisWrites();
    try {
      await applyOne(event, writes, batch.generation);
    } catch (error) {
      if (!isMemoryFoldError(error)) throw error;
      refused.push({ event, reason: "cannot_apply", error: error.message });
      writes.commands.length = 0;
    }
    if (writes.commands.length === 0) continue;
    const outcome = await generations.commit(
      batch.generation,
      batch.writer,
      checkpoint,
      event.position,
      writes.commands,
    );
    if (outcome !== "ok") return { outcome, refused: committedRefusals(), checkpoint };
    checkpoint = event.position;
  }
  if (checkpoint < batch.next) {
    const outcome = await generations.commit(batch.generation, batch.writer, checkpoint, batch.next, []);
    if (outcome !== "ok") return { outcome, refused: committedRefusals(), checkpoint };
  }
  return { outcome: "ok", refused };
}
