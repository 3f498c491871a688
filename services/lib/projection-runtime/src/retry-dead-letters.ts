// `repair` for dead letters: each open letter's event is read again from the log and handed to
// its projection's `repair`, which brings what the event touched up to date in the live
// generation. A letter whose retry works is resolved; one that fails again stays open with the
// new error. A message that never was an event has nothing to retry: it is resolved as it is.
import type { ProjectionName, RetryDeadLettersReply, SealRing } from "@cairn/contracts";
import type { DeadLetterStore } from "./dead-letter-store.ts";
import type { EventLogReader } from "./event-log-reader.ts";
import { prepareBatch } from "./prepare-batch.ts";
import type { Projection } from "./projection.ts";

export async function retryDeadLetters(options: {
  projections: readonly Projection[];
  deadLetters: DeadLetterStore;
  log: Pick<EventLogReader, "findEvents">;
  sealRing?: SealRing | undefined;
  ids?: readonly number[] | undefined;
}): Promise<RetryDeadLettersReply> {
  const byName = new Map<ProjectionName, Projection>(options.projections.map((p) => [p.name, p]));
  const wanted = options.ids ? new Set(options.ids) : undefined;
  const retried: RetryDeadLettersReply["retried"] = [];
  for (const projection of options.projections) {
    const open = await options.deadLetters.list({ projection: projection.name, status: "open", limit: 1000 });
    for (const letter of open) {
      if (wanted && !wanted.has(letter.id)) continue;
      const target = byName.get(letter.projection);
      if (!target) continue;
      try {
        if (letter.eventId !== null) {
          const [event] = await options.log.findEvents([letter.eventId]);
          if (event) {
            const prepared = await prepareBatch(target, [event], options.sealRing);
            const refused = prepared.letters[0];
            if (refused) throw new Error(refused.error);
            const generation = await target.generations.live();
            if (prepared.events.length > 0) await target.repair(generation, prepared.events);
          }
        }
        await options.deadLetters.resolve(letter.id);
        retried.push({ id: letter.id, projection: letter.projection, outcome: "resolved", error: null });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        await options.deadLetters.retryFailed(letter.id, message);
        retried.push({ id: letter.id, projection: letter.projection, outcome: "failed", error: message });
      }
    }
  }
  return { retried };
}
