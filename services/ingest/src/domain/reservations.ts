import type { MemoryDocument } from "@cairn/contracts";

type Reserving = Pick<
  MemoryDocument,
  "tier" | "status" | "scope" | "tenant" | "agent" | "project" | "slot" | "contentHash"
>;

// The uniqueness domain of a memory: its tier and scope, within its tenant (the whole
// deployment for global memories), and for private memories the owning agent.
function domain(doc: Reserving): string {
  const tenant = doc.scope === "global" ? "*" : doc.tenant;
  const owner = doc.scope === "agent" ? doc.agent : "-";
  return `${tenant}|${doc.tier}|${doc.scope}|${owner}`;
}

/** The reservation of a memory's slot in its uniqueness domain (and project). */
export function slotReservation(doc: Reserving): string {
  return `slot|${domain(doc)}|${doc.project ?? "-"}|${doc.slot}`;
}

/** The reservation of a memory's content in its uniqueness domain (no identical twin). */
export function contentReservation(doc: Reserving): string {
  return `content|${domain(doc)}|${doc.contentHash}`;
}

export function isSlotReservation(reservation: string): boolean {
  return reservation.startsWith("slot|");
}

/**
 * The reservations a memory holds in a given state: an active memory or handoff holds
 * its slot (one per tenant, scope and project) and its content (no identical twin in the
 * same scope); a pending proposal only its content (several proposals may target one slot).
 * Anything else holds nothing.
 */
export function reservationsHeld(doc: Reserving | undefined): string[] {
  if (!doc) return [];
  if (doc.tier === "proposal") return doc.status === "pending" ? [contentReservation(doc)] : [];
  return doc.status === "active" ? [slotReservation(doc), contentReservation(doc)] : [];
}

/** What an append must claim and release to go from one state of a memory to the next. */
export function reservationChanges(
  before: Reserving | undefined,
  after: Reserving | undefined,
): { claim: string[]; release: string[] } {
  const held = new Set(reservationsHeld(before));
  const next = new Set(reservationsHeld(after));
  return { claim: [...next].filter((k) => !held.has(k)), release: [...held].filter((k) => !next.has(k)) };
}
