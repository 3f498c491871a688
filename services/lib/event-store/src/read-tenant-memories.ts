import type { StoredEvent } from "@cairn/contracts";
import type pg from "pg";
import { type EventRow, eventColumns, rowToEvent } from "./row-to-event.ts";

/**
 * Every event up to `position` of the memory streams a tenant could see: its own, and the
 * global memories of every tenant. In log order, for a listing as of a past point.
 */
export async function readTenantMemories(
  db: pg.Pool | pg.ClientBase,
  tenant: string,
  position: number,
): Promise<StoredEvent[]> {
  const { rows } = await db.query<EventRow>(
    `select ${eventColumns} from cairn_events
      where stream_type = 'memory' and position <= $2
        and (meta ->> 'tenant' = $1
             or stream_id in (select stream_id from cairn_events
                               where stream_type = 'memory' and version = 1 and data ->> 'scope' = 'global'))
      order by position`,
    [tenant, position],
  );
  return rows.map(rowToEvent);
}

/**
 * A tenant's own events of the given types up to `position` (memory and activity streams
 * alike, no other tenant's global memories), in log order: what a read model folds again
 * for one tenant.
 */
export async function readTenantEvents(
  db: pg.Pool | pg.ClientBase,
  tenant: string,
  position: number,
  types: readonly string[],
): Promise<StoredEvent[]> {
  const { rows } = await db.query<EventRow>(
    `select ${eventColumns} from cairn_events
      where meta ->> 'tenant' = $1 and position <= $2 and type = any($3::text[])
      order by position`,
    [tenant, position, [...types]],
  );
  return rows.map(rowToEvent);
}

/**
 * A page of a tenant's own memory streams (memories, proposals, handoffs), in the order they
 * were created: each stream's id and the position of its first event, the cursor of the next
 * page.
 */
export async function listMemoryStreams(
  db: pg.Pool | pg.ClientBase,
  tenant: string,
  after: number,
  limit: number,
): Promise<{ streamId: string; position: number }[]> {
  const { rows } = await db.query<{ stream_id: string; position: string }>(
    `select stream_id, position from cairn_events
      where stream_type = 'memory' and version = 1 and meta ->> 'tenant' = $1 and position > $2
      order by position limit $3`,
    [tenant, after, limit],
  );
  return rows.map((r) => ({ streamId: r.stream_id, position: Number(r.position) }));
}
