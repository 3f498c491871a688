// Memories of the kinds that need a periodic check (constraints, fixes, workflows) whose
// verification is due.
import type { DoctorReport } from "@cairn/contracts";
import { jobParams } from "../settings/effective-settings.ts";
import type { TenantSnapshot } from "../view/maintenance-view.ts";
import type { MemoryCard } from "../view/memory-card.ts";
import type { Findings } from "./doctor-check.ts";

/** Memories of the verification kinds never verified, or verified longer ago than the review period. */
export function verificationDue(view: TenantSnapshot, now: Date): MemoryCard[] {
  const params = jobParams("verification", view.maintenanceSettings(), undefined);
  const cutoff = now.getTime() - params.reviewDays * 86_400_000;
  return view
    .cards()
    .filter(
      (c) =>
        c.tier === "memory" &&
        c.status === "active" &&
        params.kinds.includes(c.kind) &&
        (c.verifiedAt === null || Date.parse(c.verifiedAt) < cutoff),
    );
}

export function checkVerification(
  snapshots: readonly TenantSnapshot[],
  now: Date,
  findings: Findings,
): DoctorReport["verification"] {
  const byKind: Record<string, number> = {};
  let due = 0;
  for (const snapshot of snapshots) {
    for (const card of verificationDue(snapshot, now)) {
      due += 1;
      byKind[card.kind] = (byKind[card.kind] ?? 0) + 1;
    }
  }
  if (due > 0) {
    findings.push({
      code: "verification_due",
      severity: "info",
      message: `${due} constraint/fix/workflow memory(ies) are due for verification`,
      count: due,
      fix: "review",
    });
  }
  return { due, byKind };
}
