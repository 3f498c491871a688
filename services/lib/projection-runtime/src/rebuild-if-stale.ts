// A read model built by an older version of its projection (another text analysis, another
// layout) still answers, but not as today's code would build it. When a service starts, each
// of its projections whose live generation was built by another version is rebuilt from the
// log in the background, the old generation serving until the switch. A copy that finds
// another copy's rebuild running leaves it to that one.
import { isCairnError } from "@cairn/contracts";
import type { Logger } from "@cairn/telemetry";
import { type RebuildOptions, rebuildProjection } from "./rebuild-projection.ts";

export async function rebuildIfStale(options: RebuildOptions & { logger: Logger }): Promise<void> {
  const { projection, logger } = options;
  if (projection.version === undefined) return;
  const active = await projection.generations.active();
  if (active === null) return;
  const built = await projection.generations.version(active);
  if (built === projection.version) return;
  const fields = { projection: projection.name, generation: active, built, version: projection.version };
  logger.info(
    fields,
    "the read model was built by another version: rebuilding it from the log while it serves",
  );
  try {
    const result = await rebuildProjection(options);
    logger.info({ ...fields, generation: result.generation, events: result.events }, "read model rebuilt");
  } catch (error) {
    if (options.signal?.aborted) return;
    if (isCairnError(error) && error.code === "precondition_required") {
      logger.info(fields, "another copy is rebuilding the read model");
      return;
    }
    logger.error(
      { ...fields, err: error },
      `rebuilding the read model failed; run \`pnpm cairn rebuild --projection ${projection.name}\``,
    );
  }
}
