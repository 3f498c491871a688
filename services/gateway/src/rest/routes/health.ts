import { call } from "@cairn/bus";
import { backendServiceNames, type DependencyState, healthRpc } from "@cairn/contracts";
import type { NatsConnection } from "@nats-io/nats-core";
import type { FastifyInstance } from "fastify";

export type ReadinessDeps = {
  nc: NatsConnection;
  checks: Record<string, () => Promise<void>>;
};

async function probe(check: () => Promise<void>): Promise<DependencyState> {
  const started = performance.now();
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("no answer within 2000 ms")), 2000)),
    ]);
    return { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** `GET /healthz`: the process is alive. `GET /readyz`: every dependency and service answers. */
export function registerHealthRoutes(app: FastifyInstance, deps: ReadinessDeps): void {
  app.get("/healthz", async () => ({ status: "ok" }));

  app.get("/readyz", async (_request, reply) => {
    const checks: Record<string, () => Promise<void>> = {
      ...deps.checks,
      nats: async () => {
        await deps.nc.flush();
      },
    };
    for (const service of backendServiceNames) {
      checks[service] = async () => {
        const health = await call(deps.nc, healthRpc(service), {}, { timeoutMs: 2000 });
        if (!health.ok) {
          const down = Object.entries(health.dependencies)
            .filter(([, s]) => !s.ok)
            .map(([d]) => d);
          throw new Error(`${service} reports unhealthy dependencies: ${down.join(", ")}`);
        }
      };
    }
    const entries = await Promise.all(
      Object.entries(checks).map(async ([n, c]) => [n, await probe(c)] as const),
    );
    const ready = entries.every(([, s]) => s.ok);
    reply.code(ready ? 200 : 503);
    return { status: ready ? "ready" : "not_ready", checks: Object.fromEntries(entries) };
  });
}
