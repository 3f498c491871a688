// Admission control's queue: proposals waiting for review and handoffs still open, and how old.
import type { DoctorReport } from "@cairn/contracts";
import type { TenantSnapshot } from "../view/maintenance-view.ts";
import type { MemoryCard } from "../view/memory-card.ts";
import type { Findings } from "./doctor-check.ts";

const hourMs = 3_600_000;

function ageHours(since: string | undefined, now: Date): number | null {
  return since === undefined ? null : Math.round(((now.getTime() - Date.parse(since)) / hourMs) * 10) / 10;
}

export function checkInbox(
  snapshots: readonly TenantSnapshot[],
  now: Date,
  findings: Findings,
): DoctorReport["inbox"] {
  const cards = snapshots.flatMap((s) => s.cards());
  const oldest = (list: MemoryCard[]) => list.map((c) => c.createdAt).sort()[0];
  const proposals = cards.filter((c) => c.tier === "proposal" && c.status === "pending");
  const handoffs = cards.filter((c) => c.tier === "handoff" && c.status === "active");
  const inbox = {
    pendingProposals: proposals.length,
    oldestProposalAgeHours: ageHours(oldest(proposals), now),
    openHandoffs: handoffs.length,
    oldestHandoffAgeHours: ageHours(oldest(handoffs), now),
  };
  if ((inbox.oldestProposalAgeHours ?? 0) > 72) {
    findings.push({
      code: "inbox_aging",
      severity: "warn",
      message: `${proposals.length} proposal(s) wait for review; the oldest for ${Math.round(inbox.oldestProposalAgeHours ?? 0)} h`,
      count: proposals.length,
      fix: "review",
    });
  }
  return inbox;
}
