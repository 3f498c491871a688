import type { MemoryDocument } from "@cairn/contracts";

export type ConflictReason = "same_name" | "shared_alias" | "overlapping_topic";

export type ConflictHint = {
  ids: [string, string];
  slots: [string, string];
  reason: ConflictReason;
  detail: string;
  hint: string;
};

const norm = (s: string) => s.trim().toLowerCase();

function names(doc: MemoryDocument): Set<string> {
  return new Set([doc.slot, doc.title].filter((s) => s.trim() !== "").map(norm));
}

/**
 * Active memories that may say different things about the same subject: they share a name
 * (slot or title), one's alias names the other, or their tags overlap heavily. A hint, not a
 * verdict: the agent reads both and resolves with `memory_resolve_conflict` if they clash.
 */
export function findConflictHints(documents: readonly MemoryDocument[], max = 10): ConflictHint[] {
  const active = documents.filter((d) => d.tier === "memory" && d.status === "active");
  const hints: ConflictHint[] = [];
  for (let i = 0; i < active.length; i += 1) {
    for (let j = i + 1; j < active.length; j += 1) {
      const a = active[i]!;
      const b = active[j]!;
      const conflict = compare(a, b);
      if (!conflict) continue;
      hints.push({
        ids: [a.id, b.id],
        slots: [a.slot, b.slot],
        ...conflict,
        hint: "read both; if they disagree, call memory_resolve_conflict (dry run first) to keep one",
      });
      if (hints.length >= max) return hints;
    }
  }
  return hints;
}

function compare(
  a: MemoryDocument,
  b: MemoryDocument,
): { reason: ConflictReason; detail: string } | undefined {
  const namesA = names(a);
  const namesB = names(b);
  const sharedName = [...namesA].find((n) => namesB.has(n));
  if (sharedName) return { reason: "same_name", detail: `both are named "${sharedName}"` };
  const aliasesA = new Set(a.aliases.map(norm));
  const aliasesB = new Set(b.aliases.map(norm));
  const alias =
    [...aliasesA].find((x) => aliasesB.has(x) || namesB.has(x)) ?? [...aliasesB].find((x) => namesA.has(x));
  if (alias) return { reason: "shared_alias", detail: `both answer to "${alias}"` };
  const tagsA = new Set(a.tags.map(norm));
  const tagsB = new Set(b.tags.map(norm));
  const shared = [...tagsA].filter((t) => tagsB.has(t));
  const union = new Set([...tagsA, ...tagsB]).size;
  if (shared.length >= 2 && union > 0 && shared.length / union >= 0.5 && a.kind === b.kind) {
    return { reason: "overlapping_topic", detail: `both are ${a.kind}s tagged ${shared.join(", ")}` };
  }
  return undefined;
}
