// The projections of the back-end services opened in the test process, next to the running
// services and on the same stores, to look into their read models (snapshots, rebuilds); and
// a wait until every projection of every service has applied the log up to a position.
import { call } from "@cairn/bus";
import { type ProjectionName, projectionNames, projectionRpcs, projectionService } from "@cairn/contracts";
import { maintenanceEnvSchema, openMaintenanceProjections } from "@cairn/maintenance";
import type { Projection, ProjectionHost } from "@cairn/projection-runtime";
import { openRankingProjections, rankingEnvSchema } from "@cairn/ranking";
import { openSearchProjections, searchEnvSchema } from "@cairn/search";
import { parseEnv } from "@cairn/service-runtime";
import { createLogger } from "@cairn/telemetry";
import { waitFor } from "@cairn/testing";
import type { NatsConnection } from "@nats-io/nats-core";

const backEnds = ["search", "ranking", "maintenance"] as const;

async function openHost(service: string, env: Record<string, string>): Promise<ProjectionHost> {
  const logger = createLogger("projection-test", "warn");
  if (service === "search") return openSearchProjections(parseEnv(searchEnvSchema, env), logger);
  if (service === "ranking") return openRankingProjections(parseEnv(rankingEnvSchema, env), logger);
  return openMaintenanceProjections(parseEnv(maintenanceEnvSchema, env), logger);
}

/**
 * Opens each service's projections once (with the services' `env`), hands every projection
 * to `use` in the order of `projectionNames`, and closes them again.
 */
export async function forEachProjection(
  env: Record<string, string>,
  use: (projection: Projection, name: ProjectionName, host: ProjectionHost) => Promise<void>,
): Promise<void> {
  const hosts = new Map<string, ProjectionHost>();
  try {
    for (const name of projectionNames) {
      const service = projectionService(name);
      const host = hosts.get(service) ?? (await openHost(service, env));
      hosts.set(service, host);
      const projection = host.projections.find((p) => p.name === name);
      if (!projection) throw new Error(`${service} does not open ${name}`);
      await use(projection, name, host);
    }
  } finally {
    for (const host of hosts.values()) await host.close();
  }
}

/** Waits until every projection of every service has applied the log up to `position`. */
export async function waitForProjectionsAt(
  nc: NatsConnection,
  position: number,
  options: { timeoutMs: number; description: string },
): Promise<void> {
  await waitFor(async () => {
    for (const service of backEnds) {
      const { projections } = await call(nc, projectionRpcs(service).status, {});
      if (projections.some((p) => p.position < position)) return false;
    }
    return true;
  }, options);
}
