// `cairn.search.count`: how many memories pass the filters among those the principal may
// see, counted by the lexical index (visibility and filters are the same clauses a listing
// uses), without reading a document.
import type { CountReply, CountRequestSchema } from "@cairn/contracts";
import type { z } from "zod";
import { type ReadModels, waitForLexical } from "./read-models.ts";
import { lexicalFilterClauses } from "./search-filters.ts";
import { onActiveGeneration, readModelError } from "./store-errors.ts";

export async function countMemories(
  models: ReadModels,
  request: z.infer<typeof CountRequestSchema>,
): Promise<CountReply> {
  const position = await waitForLexical(models, request);
  const filters = lexicalFilterClauses(request.principal, request.filters, models.now());
  if (filters === null) return { count: 0, position };
  try {
    const count = await onActiveGeneration(async () => {
      const g = await models.lexical.activeGeneration();
      return g === null ? 0 : models.lexical.countDocuments(g, filters.join(" "));
    });
    return { count, position };
  } catch (error) {
    throw readModelError("lexical", error);
  }
}
