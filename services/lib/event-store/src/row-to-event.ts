import type { EventMeta, StoredEvent, StreamType } from "@cairn/contracts";

/** A row of `cairn_events` as `pg` returns it (bigint as string, jsonb parsed). */
export type EventRow = {
  position: string;
  event_id: string;
  stream_id: string;
  stream_type: string;
  version: number;
  type: string;
  schema_version: number;
  data: unknown;
  meta: EventMeta;
};

export const eventColumns =
  "position, event_id, stream_id, stream_type, version, type, schema_version, data, meta" as const;

export function rowToEvent(row: EventRow): StoredEvent {
  return {
    eventId: row.event_id,
    // bigint column: exact up to 2^53, far beyond any log this service will hold.
    position: Number(row.position),
    streamId: row.stream_id,
    streamType: row.stream_type as StreamType,
    version: row.version,
    type: row.type,
    schemaVersion: row.schema_version,
    data: row.data,
    meta: row.meta,
  };
}
