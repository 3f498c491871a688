// `cairn.search.documents`: the current documents of memories by id, for a caller that re-ranked
// candidates it had as ids. What the principal may not see, or what does not exist, is left
// out, as if it were not there.
import type {
  DocumentsReply,
  DocumentsRequestSchema,
  MemoryDocument,
  Principal,
  RetrieverName,
} from "@cairn/contracts";
import { canSee } from "@cairn/memory-model";
import type { z } from "zod";
import { loadDocuments } from "./load-documents.ts";
import { type ReadModels, waitForLexical } from "./read-models.ts";

export async function readDocuments(
  models: ReadModels,
  request: z.infer<typeof DocumentsRequestSchema>,
): Promise<DocumentsReply> {
  const position = await waitForLexical(models, request);
  const found = await visibleDocuments(models, request.principal, [...new Set(request.ids)]);
  return { documents: [...found.values()], position };
}

/**
 * The current documents of these memories that `principal` may see, in the order of `ids`: one
 * deleted or hidden since the caller found it is left out.
 */
export async function visibleDocuments(
  models: ReadModels,
  principal: Principal,
  ids: readonly string[],
  unavailable: readonly RetrieverName[] = [],
  lexicalGeneration?: Promise<number | null>,
): Promise<Map<string, MemoryDocument>> {
  const found = await loadDocuments(models, ids, unavailable, lexicalGeneration);
  const out = new Map<string, MemoryDocument>();
  for (const id of ids) {
    const document = found.get(id);
    if (document && canSee(document, principal)) out.set(id, document);
  }
  return out;
}
