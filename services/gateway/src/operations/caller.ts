import type { Principal } from "@cairn/contracts";

/** Who is calling: the API key (its id scopes rate limits and read-your-writes) and its principal. */
export type Caller = { keyId: string; principal: Principal };

/**
 * `eventual`: answer from the projections as they are. `strong`: wait until they have applied
 * this caller's last write through this gateway (or an explicit position).
 */
export type Consistency = "eventual" | "strong";

/**
 * The last log position each key wrote, for read-your-writes. A hint, not state of record:
 * the gateway's copies share it in Redis (shared-state/shared-write-positions.ts), so a strong
 * read sees a write made through another copy; a client can always pass the position it got
 * back (`afterPosition`) instead. Recording completes before the write is answered, so a read
 * sent after the answer finds it.
 */
export type WritePositions = {
  record(keyId: string, position: number): Promise<void>;
  last(keyId: string): Promise<number | undefined>;
};

/** One copy's memory of the positions (what the shared ones fall back to while Redis is away). */
export type LocalWritePositions = {
  record(keyId: string, position: number): void;
  last(keyId: string): number | undefined;
};

export function createLocalWritePositions(maxKeys = 100_000): LocalWritePositions {
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

/** Positions kept in this process only (one gateway copy, or the in-memory MCP server). */
export function createWritePositions(maxKeys = 100_000): WritePositions {
  const local = createLocalWritePositions(maxKeys);
  return {
    record: async (keyId, position) => local.record(keyId, position),
    last: async (keyId) => local.last(keyId),
  };
}
