// `cairn.search.status`: each projection's serving generation and checkpoint; with
// `afterPosition`, answers once they have applied it (a gateway can wait for its write).
import {
  type ProjectionName,
  projectionNames,
  type SearchStatusReply,
  type SearchStatusRequestSchema,
} from "@cairn/contracts";
import type { z } from "zod";
import type { ProjectionTarget } from "../projections/projection-target.ts";
import { positionSource, type ReadModels } from "./read-models.ts";
import { readModelError } from "./store-errors.ts";
import { waitForPosition } from "./wait-for-position.ts";

export async function searchStatus(
  models: ReadModels,
  targets: Record<ProjectionName, ProjectionTarget>,
  request: z.infer<typeof SearchStatusRequestSchema>,
): Promise<SearchStatusReply> {
  const names = request.projections ?? [...projectionNames];
  await waitForPosition(
    names.map((n) => positionSource(models, n)),
    request.afterPosition,
    request.waitTimeoutMs ?? models.defaultWaitMs,
  );
  const projections = await Promise.all(
    names.map(async (n) => {
      try {
        return await targets[n].status();
      } catch (error) {
        throw readModelError(n, error);
      }
    }),
  );
  return { projections, position: Math.min(...projections.map((p) => p.position)) };
}
