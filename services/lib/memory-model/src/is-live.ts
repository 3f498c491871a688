import type { MemoryDocument } from "@cairn/contracts";

/**
 * A live memory: confirmed (tier `memory`) and active. The read models' statistics (how many
 * memories a tenant has, how often a term occurs, what co-occurs) count live memories only;
 * proposals, handoffs and memories that were archived, superseded or deleted do not shape them.
 */
export function isLive(doc: Pick<MemoryDocument, "tier" | "status"> | undefined): boolean {
  return doc !== undefined && doc.tier === "memory" && doc.status === "active";
}
