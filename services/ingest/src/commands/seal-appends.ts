// Memory text is sealed at the edge of the log (crypto-shredding, see contracts'
// sealed-content.ts): just before an append, content, title and entity texts of memory events
// are sealed with the memory's seal, so the log only ever holds sealed text.
//
// Where the seal comes from costs nothing extra on the common paths: a memory the command
// loaded was opened with its seal (`known`); a memory the append creates (`no_stream`) gets a
// fresh seal, stored by the append itself in the same transaction (`newSeals`); only any other
// memory asks the seal store (one read, or an insert for a memory that lost its race).
import { type CairnEvent, newSeal, sealedEventTypes, sealMemoryFields } from "@cairn/contracts";
import type { MemorySealStore, NewSeal } from "@cairn/event-store";
import type { PlannedAppend } from "./planned-append.ts";

export type SealedAppends = { appends: PlannedAppend[]; newSeals: NewSeal[] };

function isSealable(a: PlannedAppend): boolean {
  return a.streamType === "memory" && a.events.some((e) => sealedEventTypes.has(e.type));
}

/**
 * The appends with the text of memory events sealed by each memory's seal, and the seals the
 * append must store. `fromStore`: take every seal from the store (after the log said a memory
 * the append meant to create has a seal already).
 */
export async function sealAppends(
  seals: MemorySealStore | undefined,
  tenant: string,
  appends: PlannedAppend[],
  known: ReadonlyMap<string, Uint8Array>,
  fromStore = false,
): Promise<SealedAppends> {
  const sealable = appends.filter(isSealable);
  if (!seals || sealable.length === 0) return { appends, newSeals: [] };
  const byMemory = new Map<string, Uint8Array>();
  const newSeals: NewSeal[] = [];
  const ask: string[] = [];
  for (const a of sealable) {
    const seal = fromStore ? undefined : known.get(a.id);
    if (seal) byMemory.set(a.id, seal);
    else if (!fromStore && a.expectedVersion === "no_stream") {
      const fresh = newSeal();
      byMemory.set(a.id, fresh);
      newSeals.push({ memoryId: a.id, tenant, seal: fresh });
    } else ask.push(a.id);
  }
  if (ask.length > 0) for (const [id, seal] of await seals.ensureSeals(tenant, ask)) byMemory.set(id, seal);
  return {
    newSeals,
    appends: appends.map((a) => {
      const seal = byMemory.get(a.id);
      if (!seal || !isSealable(a)) return a;
      const events = a.events.map((e) =>
        sealedEventTypes.has(e.type)
          ? ({
              ...e,
              data: sealMemoryFields(e.data as Parameters<typeof sealMemoryFields>[0], seal, a.id),
            } as CairnEvent)
          : e,
      );
      return { ...a, events };
    }),
  };
}
