import type { StoredEvent } from "@cairn/contracts";
import type pg from "pg";
import { type EventRow, eventColumns, rowToEvent } from "./row-to-event.ts";

/** Every committed event of one stream, in version order (empty when the stream does not exist). */
export async function readStream(db: pg.Pool | pg.ClientBase, streamId: string): Promise<StoredEvent[]> {
  const { rows } = await db.query<EventRow>({
    name: "cairn-read-stream",
    text: `select ${eventColumns} from cairn_events where stream_id = $1 order by version`,
    values: [streamId],
  });
  return rows.map(rowToEvent);
}

/** The events of several streams in one query, grouped by stream id, each in version order. */
export async function readStreams(
  db: pg.Pool | pg.ClientBase,
  streamIds: readonly string[],
): Promise<Map<string, StoredEvent[]>> {
  const out = new Map<string, StoredEvent[]>(streamIds.map((id) => [id, []]));
  if (streamIds.length === 0) return out;
  const { rows } = await db.query<EventRow>({
    name: "cairn-read-streams",
    text: `select ${eventColumns} from cairn_events where stream_id = any($1::text[]) order by stream_id, version`,
    values: [streamIds],
  });
  for (const row of rows) out.get(row.stream_id)?.push(rowToEvent(row));
  return out;
}
