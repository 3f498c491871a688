// Events a projection skipped because no retry could apply them, kept for an operator in
// `cairn_search.dead_letters` (one row per projection, generation and event).
import type { ProjectionName } from "@cairn/contracts";
import type pg from "pg";
import type { DeadLetter } from "./fold-events.ts";

export async function recordDeadLetters(
  db: pg.Pool | pg.PoolClient,
  projection: ProjectionName,
  generation: number,
  letters: readonly DeadLetter[],
): Promise<void> {
  if (letters.length === 0) return;
  await db.query(
    `insert into cairn_search.dead_letters
       (projection, generation, position, event_id, event_type, stream_id, reason, error, event)
     select $1, $2, l.position, l.event_id, l.event_type, l.stream_id, l.reason, l.error, l.event
       from unnest($3::bigint[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::jsonb[])
            as l(position, event_id, event_type, stream_id, reason, error, event)
     on conflict do nothing`,
    [
      projection,
      generation,
      letters.map((l) => l.event?.position ?? null),
      letters.map((l) => l.event?.eventId ?? null),
      letters.map((l) => l.event?.type ?? null),
      letters.map((l) => l.event?.streamId ?? null),
      letters.map((l) => l.reason),
      letters.map((l) => l.error),
      letters.map((l) => (l.event ? JSON.stringify(l.event) : JSON.stringify({ raw: l.raw ?? null }))),
    ],
  );
}

export type DeadLetterRow = {
  projection: ProjectionName;
  generation: number;
  position: number | null;
  eventId: string | null;
  eventType: string | null;
  reason: string;
  error: string;
};

export async function listDeadLetters(db: pg.Pool, projection?: ProjectionName): Promise<DeadLetterRow[]> {
  const { rows } = await db.query<{
    projection: ProjectionName;
    generation: number;
    position: string | null;
    event_id: string | null;
    event_type: string | null;
    reason: string;
    error: string;
  }>(
    `select projection, generation, position, event_id, event_type, reason, error
       from cairn_search.dead_letters where $1::text is null or projection = $1 order by id`,
    [projection ?? null],
  );
  return rows.map((r) => ({
    projection: r.projection,
    generation: r.generation,
    position: r.position === null ? null : Number(r.position),
    eventId: r.event_id,
    eventType: r.event_type,
    reason: r.reason,
    error: r.error,
  }));
}
