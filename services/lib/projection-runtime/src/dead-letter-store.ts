// Dead letters of every projection, in one Postgres table (`cairn_projections.dead_letters`,
// one row per projection, generation and event): what was skipped, why, and how often it was
// tried; `repair` retries open ones and marks them resolved.
import type { ProjectionName } from "@cairn/contracts";
import type pg from "pg";
import type { DeadLetter, DeadLetterReason } from "./dead-letter.ts";

export type DeadLetterRow = {
  id: number;
  projection: ProjectionName;
  generation: number;
  position: number | null;
  eventId: string | null;
  eventType: string | null;
  streamId: string | null;
  tenant: string | null;
  reason: DeadLetterReason;
  error: string;
  attempts: number;
  status: "open" | "resolved";
  retries: number;
  recordedAt: string;
  retriedAt: string | null;
};

export type DeadLetterStore = {
  record(projection: ProjectionName, generation: number, letters: readonly DeadLetter[]): Promise<void>;
  list(options?: {
    projection?: ProjectionName;
    status?: "open" | "resolved";
    limit?: number;
  }): Promise<DeadLetterRow[]>;
  /** Open dead letters per projection, and when the last was recorded. */
  openCounts(): Promise<Map<ProjectionName, { count: number; lastAt: string }>>;
  /** A retry worked: the letter is resolved. */
  resolve(id: number): Promise<void>;
  /** A retry failed again: the letter stays open with the new error. */
  retryFailed(id: number, error: string): Promise<void>;
};

/** A row as Postgres answers it: bigints as text, times as dates. */
type Row = Omit<DeadLetterRow, "id" | "position" | "recordedAt" | "retriedAt"> & {
  id: string;
  position: string | null;
  recordedAt: Date;
  retriedAt: Date | null;
};

export function createDeadLetterStore(db: pg.Pool): DeadLetterStore {
  return {
    async record(projection, generation, letters) {
      if (letters.length === 0) return;
      // A letter recorded again (a redelivery, a copy that applied the same batch) keeps one row.
      await db.query(
        `insert into cairn_projections.dead_letters
           (projection, generation, position, event_id, event_type, stream_id, tenant, reason, error, attempts, raw)
         select $1, $2, l.position, l.event_id, l.event_type, l.stream_id, l.tenant, l.reason, l.error, l.attempts, l.raw
           from unnest($3::bigint[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                       $10::int[], $11::text[])
                as l(position, event_id, event_type, stream_id, tenant, reason, error, attempts, raw)
         on conflict (projection, generation, event_id) where event_id is not null
         do update set reason = excluded.reason, error = excluded.error, attempts = excluded.attempts,
                       status = 'open', resolved_at = null`,
        [
          projection,
          generation,
          letters.map((l) => l.event?.position ?? null),
          letters.map((l) => l.event?.eventId ?? null),
          letters.map((l) => l.event?.type ?? null),
          letters.map((l) => l.event?.streamId ?? null),
          letters.map((l) => l.event?.meta.tenant ?? null),
          letters.map((l) => l.reason),
          // Postgres text holds no NUL; an error message may quote the event that had one.
          letters.map((l) => l.error.replaceAll("\u0000", "\\u0000").slice(0, 4000)),
          letters.map((l) => l.attempts),
          letters.map((l) =>
            l.raw === undefined ? null : l.raw.replaceAll("\u0000", "\\u0000").slice(0, 10_000),
          ),
        ],
      );
    },
    async list(options = {}) {
      const { rows } = await db.query<Row>(
        `select id, projection, generation, position, event_id as "eventId", event_type as "eventType",
                stream_id as "streamId", tenant, reason, error, attempts, status, retries,
                recorded_at as "recordedAt", retried_at as "retriedAt"
           from cairn_projections.dead_letters
          where ($1::text is null or projection = $1) and ($2::text is null or status = $2)
          order by id limit $3`,
        [options.projection ?? null, options.status ?? null, options.limit ?? 1000],
      );
      return rows.map((r) => ({
        ...r,
        id: Number(r.id),
        position: r.position === null ? null : Number(r.position),
        recordedAt: r.recordedAt.toISOString(),
        retriedAt: r.retriedAt?.toISOString() ?? null,
      }));
    },
    async openCounts() {
      const { rows } = await db.query<{ projection: ProjectionName; n: string; last_at: Date }>(
        `select projection, count(*) as n, max(recorded_at) as last_at from cairn_projections.dead_letters
          where status = 'open' group by projection`,
      );
      return new Map(
        rows.map((r) => [r.projection, { count: Number(r.n), lastAt: r.last_at.toISOString() }]),
      );
    },
    async resolve(id) {
      await db.query(
        `update cairn_projections.dead_letters
            set status = 'resolved', resolved_at = now(), retried_at = now(), retries = retries + 1
          where id = $1`,
        [id],
      );
    },
    async retryFailed(id, error) {
      await db.query(
        `update cairn_projections.dead_letters
            set error = $2, retried_at = now(), retries = retries + 1 where id = $1`,
        [id, error.replaceAll("\u0000", "\\u0000").slice(0, 4000)],
      );
    },
  };
}
