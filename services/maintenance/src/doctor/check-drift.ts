// The search read models against the log: every document (full) or a sample of the log's
// memories, each compared with the version the log says it should have at the position the
// read model claims to have applied.
import { type DriftReport, type RetrieverName, retrieverNames } from "@cairn/contracts";
import type { ReadModelInventory } from "../clients/search-repair-client.ts";
import { type MemoryCard, versionAt } from "../view/memory-card.ts";
import { type DoctorDeps, type Findings, snapshotsOf, unavailable } from "./doctor-check.ts";

const maxIds = 50;

export type DriftDetail = DriftReport & { missingIds: string[]; staleIds: string[]; notPurgedIds: string[] };

/** Compares one read model with the log as of the read model's own position. */
export function compareWithLog(
  inventory: ReadModelInventory,
  cards: ReadonlyMap<string, MemoryCard>,
  checkedIds: readonly string[] | "all",
): DriftDetail {
  const position = inventory.position;
  const missing: string[] = [];
  const stale: string[] = [];
  const unexplained: string[] = [];
  const notPurged: string[] = [];
  const ids =
    checkedIds === "all" ? [...new Set([...cards.keys(), ...inventory.documents.keys()])] : checkedIds;
  let checked = 0;
  for (const id of ids) {
    const card = cards.get(id);
    const held = inventory.documents.get(id);
    const expected = card ? versionAt(card, position) : 0;
    if (expected === 0 && !held) continue;
    checked += 1;
    if (!card) {
      if (held) unexplained.push(id);
      continue;
    }
    if (!held) {
      if (expected > 0) missing.push(id);
      continue;
    }
    // Behind the position it claims to have applied: it lost events. Ahead of the log: the
    // log cannot explain it. In between: live projection moved on while the doctor looked.
    if (held.version > card.version) unexplained.push(id);
    else if (held.version < expected) stale.push(id);
    const purgedAt = card.purgedAt ? card.positions[card.positions.length - 1] : undefined;
    if (purgedAt !== undefined && purgedAt <= position && held.hasText) notPurged.push(id);
  }
  return {
    readModel: inventory.projection,
    position,
    checked,
    missing: missing.length,
    stale: stale.length,
    unexplained: unexplained.length,
    notPurged: notPurged.length,
    ids: {
      missing: missing.slice(0, maxIds),
      stale: stale.slice(0, maxIds),
      unexplained: unexplained.slice(0, maxIds),
      notPurged: notPurged.slice(0, maxIds),
    },
    missingIds: missing,
    staleIds: stale,
    notPurgedIds: notPurged,
  };
}

function sample<T>(items: readonly T[], size: number): T[] {
  if (items.length <= size) return [...items];
  const copy = [...items];
  for (let i = 0; i < size; i += 1) {
    const j = i + Math.floor(Math.random() * (copy.length - i));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy.slice(0, size);
}

async function cardsOf(deps: Pick<DoctorDeps, "view">, tenant: string | undefined): Promise<MemoryCard[]> {
  return (await snapshotsOf(deps.view, tenant)).flatMap((s) => s.cards());
}

/** Drift of each search read model for the tenant (or all tenants). */
export async function readModelDrift(
  deps: Pick<DoctorDeps, "view" | "searchRepair">,
  options: { tenant?: string | undefined; full: boolean; sampleSize: number },
): Promise<DriftDetail[]> {
  const out: DriftDetail[] = [];
  for (const projection of retrieverNames as readonly RetrieverName[]) {
    const tenantFilter = options.tenant === undefined ? {} : { tenant: options.tenant };
    let inventory: ReadModelInventory;
    let checkedIds: string[] | "all";
    if (options.full) {
      inventory = await deps.searchRepair.inventory(projection, tenantFilter);
      checkedIds = "all";
    } else {
      await deps.view.catchUp();
      const ids = sample(
        (await cardsOf(deps, options.tenant)).map((c) => c.id),
        options.sampleSize,
      );
      if (ids.length === 0) continue;
      inventory = await deps.searchRepair.inventory(projection, { ...tenantFilter, ids });
      checkedIds = ids;
    }
    // After the inventory: whatever a read model holds, the view has read from the log.
    await deps.view.catchUp();
    const cards = new Map((await cardsOf(deps, options.tenant)).map((c) => [c.id, c]));
    out.push(compareWithLog(inventory, cards, checkedIds));
  }
  return out;
}

export async function checkDrift(
  deps: Pick<DoctorDeps, "view" | "searchRepair">,
  findings: Findings,
  options: { tenant?: string | undefined; full: boolean; sampleSize: number },
): Promise<DriftReport[]> {
  try {
    const details = await readModelDrift(deps, options);
    const drift = details.map(({ missingIds: _m, staleIds: _s, notPurgedIds: _n, ...report }) => report);
    for (const d of drift) {
      const add = (code: Findings[number]["code"], n: number, what: string, fix: Findings[number]["fix"]) => {
        if (n > 0)
          findings.push({
            code,
            severity: "error",
            message: `${n} ${what} in ${d.readModel}`,
            count: n,
            fix,
          });
      };
      add("document_missing", d.missing, "document(s) of the log are missing", "repair");
      add("document_stale", d.stale, "document(s) are behind the log", "repair");
      add("document_unexplained", d.unexplained, "document(s) are not explained by the log", "rebuild");
      add("document_not_purged", d.notPurged, "purged memory(ies) still hold text", "repair");
    }
    return drift;
  } catch (error) {
    unavailable(findings, "the read model inventory", error);
    return [];
  }
}
