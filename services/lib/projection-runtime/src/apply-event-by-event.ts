// A Redis projection that reads what it needs before each write (counters, cards, a key graph)
// applies a batch one event at a time: each event's writes go with the checkpoint at that
// event in their own compare-and-set, so the next event reads what the one before wrote.
// An event that writes nothing (its fold refuses it, or it does not concern this read model,
// as most recalls do not concern the key graph) has no commit of its own: its position goes
// with the next commit, so a batch of recalls is not a compare-and-set per recall.
//
// Events the projection says may go together (the same `runKey`, one after another: a
// command's recalls of one tenant) are applied as one run, in order, with one commit at the
// last one's position: what they read is read once. A run its fold refuses is applied again
// event by event, so a refusal names its own event.
import type { DecodedEvent } from "@cairn/contracts";
import { isMemoryFoldError } from "@cairn/memory-model";
import type { ApplyResult, ProjectionBatch, RefusedEvent } from "./projection.ts";
import type { RedisGenerations } from "./redis-generations.ts";
import { RedisWrites } from "./redis-writes.ts";

/** Consecutive events with the same run key (not null) as one step, every other event alone. */
function steps(
  events: readonly DecodedEvent[],
  runKey: (event: DecodedEvent) => string | null,
): DecodedEvent[][] {
  const out: DecodedEvent[][] = [];
  let key: string | null = null;
  for (const event of events) {
    const next = runKey(event);
    const last = out[out.length - 1];
    if (next !== null && next === key && last) last.push(event);
    else out.push([event]);
    key = next;
  }
  return out;
}

export async function applyEventByEvent(
  generations: RedisGenerations,
  batch: ProjectionBatch,
  apply: (events: readonly DecodedEvent[], writes: RedisWrites, generation: number) => Promise<void>,
  runKey: (event: DecodedEvent) => string | null = () => null,
): Promise<ApplyResult> {
  const refused: RefusedEvent[] = [];
  // The checkpoint the read model holds: what the last commit wrote.
  let checkpoint = batch.expected;
  // Only what is committed is reported refused (the rest is applied, and refused, again).
  const committedRefusals = () => refused.filter((r) => r.event.position <= checkpoint);
  const todo = steps(batch.events, runKey);
  for (let i = 0; i < todo.length; i += 1) {
    const step = todo[i] as DecodedEvent[];
    const writes = new RedisWrites();
    try {
      await apply(step, writes, batch.generation);
    } catch (error) {
      if (!isMemoryFoldError(error)) throw error;
      if (step.length > 1) {
        todo.splice(i + 1, 0, ...step.map((event) => [event]));
        continue;
      }
      refused.push({ event: step[0] as DecodedEvent, reason: "cannot_apply", error: error.message });
      writes.commands.length = 0;
    }
    if (writes.commands.length === 0) continue;
    const position = (step[step.length - 1] as DecodedEvent).position;
    const outcome = await generations.commit(
      batch.generation,
      batch.writer,
      checkpoint,
      position,
      writes.commands,
    );
    if (outcome !== "ok") return { outcome, refused: committedRefusals(), checkpoint };
    checkpoint = position;
  }
  if (checkpoint < batch.next) {
    const outcome = await generations.commit(batch.generation, batch.writer, checkpoint, batch.next, []);
    if (outcome !== "ok") return { outcome, refused: committedRefusals(), checkpoint };
  }
  return { outcome: "ok", refused };
}
