// A tenant's events (or one stream's) newest first, a page at a time: the event timeline.
import type { StoredEvent } from "@cairn/contracts";
import type pg from "pg";
import { type EventRow, eventColumns, rowToEvent } from "./row-to-event.ts";

export type TimelineQuery = {
  tenant: string;
  /** One stream's events only. */
  stream?: string | undefined;
  /** Events below this position (the page before). */
  before?: number | undefined;
  limit: number;
};

/** Newest first, below `before`; one more than `limit`, so the caller knows a next page exists. */
export async function readTimeline(
  db: pg.Pool | pg.ClientBase,
  query: TimelineQuery,
): Promise<StoredEvent[]> {
  const { rows } = await db.query<EventRow>(
    `select ${eventColumns}
       from cairn_events
      where meta ->> 'tenant' = $1
        and ($2::text is null or stream_id = $2)
        and ($3::bigint is null or position < $3)
      order by position desc
      limit $4`,
    [query.tenant, query.stream ?? null, query.before ?? null, query.limit + 1],
  );
  return rows.map(rowToEvent);
}
