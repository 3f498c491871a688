// `cairn.search.reproject`: repairs named documents of the read models from the log (what
// maintenance's repair job asks for after the doctor found a document missing or behind).
// Each read model re-folds those streams up to its checkpoint (see document-projection.ts);
// live projection carries on from the repaired documents as if nothing had happened.
import { type ReprojectReply, type ReprojectRequestSchema, retrieverNames } from "@cairn/contracts";
import type { z } from "zod";
import type { DocumentProjection } from "../projections/document-projection.ts";

export async function reprojectDocuments(
  projections: { lexical: DocumentProjection; vector: DocumentProjection },
  request: z.infer<typeof ReprojectRequestSchema>,
): Promise<ReprojectReply> {
  const names = request.projections ?? [...retrieverNames];
  const ids = [...new Set(request.ids)];
  const replies: ReprojectReply["projections"] = [];
  for (const name of names) replies.push({ name, ...(await projections[name].reproject(ids)) });
  return { projections: replies };
}
