import type { StoredEvent } from "@cairn/contracts";
import type pg from "pg";
import { type EventRow, eventColumns, rowToEvent } from "./row-to-event.ts";

/** The stored events with these ids (those that exist), in log order. */
export async function findEvents(
  db: pg.Pool | pg.ClientBase,
  eventIds: readonly string[],
): Promise<StoredEvent[]> {
  if (eventIds.length === 0) return [];
  const { rows } = await db.query<EventRow>({
    name: "cairn-find-events",
    text: `select ${eventColumns} from cairn_events where event_id = any($1::uuid[]) order by position`,
    values: [eventIds],
  });
  return rows.map(rowToEvent);
}
