// `cairn.search.documents`: the current documents of memories by id, for a caller that re-ranked
// candidates it had as ids. What the principal may not see, or what does not exist, is left
// out, as if it were not there.
import type { DocumentsReply, DocumentsRequestSchema } from "@cairn/contracts";
import { canSee } from "@cairn/memory-model";
import type { z } from "zod";
import { loadDocuments } from "./load-documents.ts";
import { type ReadModels, waitForLexical } from "./read-models.ts";

export async function readDocuments(
  models: ReadModels,
  request: z.infer<typeof DocumentsRequestSchema>,
): Promise<DocumentsReply> {
  const position = await waitForLexical(models, request);
  const ids = [...new Set(request.ids)];
  const found = await loadDocuments(models, ids);
  const documents = ids.flatMap((id) => {
    const document = found.get(id);
    return document && canSee(document, request.principal) ? [document] : [];
  });
  return { documents, position };
}
