import type { Principal } from "@cairn/contracts";

/** Who is calling: the API key (its id scopes rate limits and read-your-writes) and its principal. */
export type Caller = { keyId: string; principal: Principal };

/**
 * `eventual`: answer from the projections as they are. `strong`: wait until they have applied
 * this caller's last write through this gateway (or an explicit position).
 */
export type Consistency = "eventual" | "strong";

/**
 * The last log position each key wrote through this gateway copy. A hint for
 * read-your-writes, not state of record: a restart forgets it, and a client that talks to
 * several copies passes the position it got back (`afterPosition`) instead.
 */
export type WritePositions = {
  record(keyId: string, position: number): void;
  last(keyId: string): number | undefined;
};

export function createWritePositions(maxKeys = 100_000): WritePositions {
  const positions = new Map<string, number>();
  return {
    record(keyId, position) {
      if (positions.size >= maxKeys && !positions.has(keyId)) positions.clear();
      positions.set(keyId, Math.max(position, positions.get(keyId) ?? 0));
    },
    last(keyId) {
      return positions.get(keyId);
    },
  };
}
