// The current documents of memories by id, for the results a caller keeps. They come from the
// lexical read model, which holds every memory's document next to its index entry (one Redis
// round trip); what it does not hold yet (a write the vector read model applied first), or all
// of them while it is away, from the vector read model's rows.
import type { MemoryDocument, RetrieverName } from "@cairn/contracts";
import type { ReadModels } from "./read-models.ts";
import { readModelError } from "./store-errors.ts";

export async function loadDocuments(
  models: Pick<ReadModels, "lexical" | "vector" | "vectorRows">,
  ids: readonly string[],
  unavailable: readonly RetrieverName[] = [],
  /** The lexical generation to read, when the caller asked for it earlier (read now otherwise). */
  lexicalGeneration?: Promise<number | null>,
): Promise<Map<string, MemoryDocument>> {
  const out = new Map<string, MemoryDocument>();
  if (ids.length === 0) return out;
  let failure: { name: RetrieverName; error: unknown } | undefined;
  if (!unavailable.includes("lexical")) {
    try {
      const g = await (lexicalGeneration ?? models.lexical.activeGeneration());
      if (g !== null)
        for (const [id, document] of await models.lexical.loadDocuments(g, ids)) out.set(id, document);
    } catch (error) {
      failure = { name: "lexical", error };
    }
  }
  const missing = ids.filter((id) => !out.has(id));
  if (missing.length > 0 && !unavailable.includes("vector")) {
    try {
      const rows = await models.vectorRows.loadRows(await models.vector.servingGeneration(), missing);
      for (const [id, row] of rows) out.set(id, row.document);
    } catch (error) {
      failure ??= { name: "vector", error };
      if (out.size === 0) throw readModelError(failure.name, failure.error);
    }
  }
  if (out.size === 0 && failure) throw readModelError(failure.name, failure.error);
  return out;
}
