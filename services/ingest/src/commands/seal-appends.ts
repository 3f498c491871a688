// Memory text is sealed at the edge of the log (crypto-shredding, see contracts'
// sealed-content.ts): just before an append, content, title and entity texts of memory events
// are sealed with the memory's seal, so the log only ever holds sealed text.
import { type CairnEvent, sealedEventTypes, sealMemoryFields } from "@cairn/contracts";
import type { MemorySealStore } from "@cairn/event-store";
import type { PlannedAppend } from "./planned-append.ts";

/** The appends with the text of memory events sealed by each memory's seal. */
export async function sealAppends(
  seals: MemorySealStore | undefined,
  tenant: string,
  appends: PlannedAppend[],
): Promise<PlannedAppend[]> {
  const sealable = (a: PlannedAppend) =>
    a.streamType === "memory" && a.events.some((e) => sealedEventTypes.has(e.type));
  const ids = appends.filter(sealable).map((a) => a.id);
  if (!seals || ids.length === 0) return appends;
  const byMemory = await seals.ensureSeals(tenant, ids);
  return appends.map((a) => {
    const seal = byMemory.get(a.id);
    if (!seal || !sealable(a)) return a;
    const events = a.events.map((e) =>
      sealedEventTypes.has(e.type)
        ? ({
            ...e,
            data: sealMemoryFields(e.data as Parameters<typeof sealMemoryFields>[0], seal, a.id),
          } as CairnEvent)
        : e,
    );
    return { ...a, events };
  });
}
