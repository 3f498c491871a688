// `memory_status` / `GET /v1/status`: every service's health, the caller's open work, the
// tenant's settings in brief, and the doctor's verdict for the tenant.
import type { CairnError } from "@cairn/contracts";
import type { Caller } from "./caller.ts";
import { countOpen } from "./list-memories.ts";
import type { OperationsDeps } from "./operations-deps.ts";
import { tenantSettingsSummary } from "./tenant-settings.ts";

export async function status(deps: OperationsDeps, caller: Caller) {
  const services = ["ingest", "search", "ranking", "maintenance"] as const;
  const health = await Promise.all(
    services.map(async (service) => {
      try {
        const reply = await deps.backend.health(service);
        return [service, { ok: reply.ok, instance: reply.instance, version: reply.version }] as const;
      } catch (error) {
        return [service, { ok: false, error: (error as CairnError).code ?? "unavailable" }] as const;
      }
    }),
  );
  const [proposals, handoffs, settings, doctor] = await Promise.all([
    countOpen(deps, caller, "proposal", { consistency: "strong" }),
    countOpen(deps, caller, "handoff", { consistency: "strong" }),
    // The tenant's settings in brief (null when they cannot be read).
    tenantSettingsSummary(deps, caller),
    // The maintenance doctor's verdict for the tenant; null when maintenance does not answer.
    deps.backend.doctorSummary(caller.principal.tenant).then(
      (r) => ({
        status: r.status,
        summary: r.summary,
        findings: r.findings.map((f) => ({
          code: f.code,
          severity: f.severity,
          count: f.count,
          fix: f.fix,
        })),
      }),
      () => null,
    ),
  ]);
  return {
    principal: caller.principal,
    services: Object.fromEntries(health),
    ranking: health.find(([s]) => s === "ranking")?.[1].ok ? "ranked" : "search_order",
    pending: { proposals, handoffs },
    lastWritePosition: (await deps.positions.last(caller.keyId)) ?? null,
    settings,
    health: doctor,
  };
}
