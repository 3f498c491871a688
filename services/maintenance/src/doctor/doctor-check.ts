// What the doctor's checks share: what they may read, and the findings they add. Each check
// is one file, answers its part of the report, and never names a memory by anything but its id.
import type { DoctorFinding } from "@cairn/contracts";
import type { NatsConnection } from "@nats-io/nats-core";
import type pg from "pg";
import type { SearchRepairClient } from "../clients/search-repair-client.ts";
import type { MaintenanceView, TenantSnapshot } from "../view/maintenance-view.ts";

export type DoctorDeps = {
  pool: pg.Pool;
  nc: NatsConnection;
  view: MaintenanceView;
  searchRepair: SearchRepairClient;
  now: () => Date;
  timeoutMs: number;
};

export type Findings = DoctorFinding[];

/** Adds a finding that something the doctor asked did not answer. */
export function unavailable(findings: Findings, what: string, error: unknown): void {
  findings.push({
    code: "unavailable",
    severity: "warn",
    message: `${what} did not answer: ${(error as Error).message}`,
    count: 1,
    fix: "none",
  });
}

/** The snapshots of the tenants a report covers. */
export async function snapshotsOf(
  view: MaintenanceView,
  tenant: string | undefined,
): Promise<TenantSnapshot[]> {
  const tenants = tenant === undefined ? await view.tenants() : [tenant];
  return Promise.all(tenants.map((t) => view.snapshot(t)));
}
