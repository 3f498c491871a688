import type { StoredEvent } from "@cairn/contracts";
import type pg from "pg";
import { type EventRow, eventColumns, rowToEvent } from "./row-to-event.ts";

/** An event with the transaction that committed it (the relay publishes a commit's events together). */
export type CommittedEvent = { transactionId: string; event: StoredEvent };

/**
 * Committed events after a position, in log order, never skipping one that commits late.
 *
 * Only rows written by transactions older than the oldest one still running
 * (`pg_snapshot_xmin`) are read: a transaction that took a position but has not committed
 * yet holds every later row back until it commits or aborts. Appends take their transaction
 * id and positions under one lock (see append-to-streams.ts), so (transaction_id, position)
 * order and position order agree, and a position is a safe checkpoint.
 */
export async function readCommitted(
  db: pg.Pool | pg.ClientBase,
  options: { after: number; limit: number },
): Promise<CommittedEvent[]> {
  // The lower bound on transaction_id (the checkpoint event's own) lets the scan start at the
  // checkpoint in the (transaction_id, position) index instead of sorting everything after it.
  const { rows } = await db.query<EventRow & { committed_by: string }>({
    name: "cairn-read-all",
    // Not aliased `transaction_id`: ORDER BY would then sort by the text, not the xid8.
    text: `select ${eventColumns}, transaction_id::text as committed_by from cairn_events
      where transaction_id >= coalesce((select transaction_id from cairn_events where position = $1), '0'::xid8)
        and position > $1
        and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
      order by transaction_id, position
      limit $2`,
    values: [options.after, options.limit],
  });
  return rows.map((row) => ({ transactionId: row.committed_by, event: rowToEvent(row) }));
}

/** `readCommitted` without the transactions: what projections read. */
export async function readAll(
  db: pg.Pool | pg.ClientBase,
  options: { after: number; limit: number },
): Promise<StoredEvent[]> {
  return (await readCommitted(db, options)).map((c) => c.event);
}
