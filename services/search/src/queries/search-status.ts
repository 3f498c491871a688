// `cairn.search.status`: each read model's serving generation and checkpoint; with
// `afterPosition`, answers once they have applied it (a gateway can wait for its write).
import { retrieverNames, type SearchStatusReply, type SearchStatusRequestSchema } from "@cairn/contracts";
import { waitForPosition } from "@cairn/projection-runtime";
import type { z } from "zod";
import { positionSource, type ReadModels } from "./read-models.ts";
import { readModelError } from "./store-errors.ts";

export async function searchStatus(
  models: ReadModels,
  request: z.infer<typeof SearchStatusRequestSchema>,
): Promise<SearchStatusReply> {
  const names = request.projections ?? [...retrieverNames];
  await waitForPosition(
    names.map((n) => positionSource(models, n)),
    request.afterPosition,
    request.waitTimeoutMs ?? models.defaultWaitMs,
  );
  let projections: SearchStatusReply["projections"];
  try {
    projections = await models.runtime.status(names.map((n) => `search.${n}` as const));
  } catch (error) {
    throw readModelError(names[0] ?? "lexical", error);
  }
  return { projections, position: Math.min(...projections.map((p) => p.position)) };
}
