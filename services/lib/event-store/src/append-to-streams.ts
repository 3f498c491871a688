import { currentSchemaVersion, type EventMeta, type NewEvent, type StreamType } from "@cairn/contracts";
import { getMeter, getTracer, startSpan } from "@cairn/telemetry";
import type pg from "pg";
import { EventIdReuseError, ReservationTakenError, VersionConflictError } from "./errors.ts";

/** A stream's version the writer read (1 = one event), no stream yet, or no check at all. */
export type ExpectedVersion = number | "no_stream" | "any";

/**
 * Uniqueness across streams. `claim`: keys this stream must hold after the append (held by
 * another stream: `ReservationTakenError`; already held by this stream: fine). `release`:
 * keys this stream gives up. Releases run before claims, so one append can move a key
 * from one stream to another (a supersede moves the slot to the replacement).
 */
export type Reservations = { claim?: readonly string[]; release?: readonly string[] };

export type AppendInput = {
  streamId: string;
  streamType: StreamType;
  expectedVersion: ExpectedVersion;
  /** May be empty: the append then only asserts the expected version (and reservations). */
  events: readonly NewEvent[];
  meta: EventMeta;
  reservations?: Reservations;
};

export type AppendResult = {
  streamId: string;
  /** The stream's version after the append (its last event's version). */
  nextVersion: number;
  /** The log positions of the appended events, in order. */
  positions: number[];
};

/**
 * The lock `cairn_append` (infra/migrations) holds while it takes the transaction id and the
 * positions of an append. Among appends, transaction id order and position order therefore
 * agree; readers read only below the oldest running transaction (`pg_snapshot_xmin`) in
 * (transaction_id, position) order, so a position checkpoint never steps over an event that
 * commits later. The lock is released before the commit: concurrent commits overlap.
 */
export const appendLockKey = 0x4341_4952_4e01n; // "CAIRN" + 1

const appended = getMeter("@cairn/event-store").createCounter("cairn_events_appended", {
  description: "Events appended to the log, by event type (a replayed append counts nothing)",
});

const tracer = getTracer("@cairn/event-store");

/** Postgres unique_violation: a concurrent append committed the same version, event id or key first. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown })?.code === "23505";
}

type ExistingEventRow = {
  kind: "event";
  event_id: string;
  stream_id: string;
  version: number;
  position: string;
};
/** Results of a retried append, rebuilt from the events it wrote the first time. */
async function originalResults(
  pool: pg.Pool,
  inputs: readonly AppendInput[],
  existing: ExistingEventRow[],
): Promise<AppendResult[]> {
  const byId = new Map(existing.map((row) => [row.event_id, row]));
  return Promise.all(
    inputs.map(async (input) => {
      if (input.events.length === 0) {
        // An input that only asserted a version wrote nothing to report: its stream's version now.
        const { rows } = await pool.query<{ version: number }>(
          "select coalesce(max(version), 0)::int as version from cairn_events where stream_id = $1",
          [input.streamId],
        );
        return { streamId: input.streamId, nextVersion: rows[0]?.version ?? 0, positions: [] };
      }
      const rows = input.events.map((e) => byId.get(e.eventId));
      if (rows.some((row) => row === undefined || row.stream_id !== input.streamId)) {
        throw new EventIdReuseError(input.events.map((e) => e.eventId));
      }
      const found = rows as ExistingEventRow[];
      return {
        streamId: input.streamId,
        nextVersion: Math.max(...found.map((r) => r.version)),
        positions: found.map((r) => Number(r.position)),
      };
    }),
  );
}

/**
 * Appends events to one or more streams in one transaction, with optimistic concurrency per
 * stream and the streams' reservations. Idempotent by event id: when every event id is in
 * the log already, nothing is written and the original versions and positions are returned.
 * Traced as `event-store append` (the `cairn_append` call is its child, through the pg
 * instrumentation), with the streams, event types and positions as attributes.
 */
export async function appendToStreams(
  pool: pg.Pool,
  inputs: readonly AppendInput[],
): Promise<AppendResult[]> {
  return traceAppend(inputs, () => appendWithRetry(pool, inputs));
}

/** Runs an append in its `event-store append` span, with its streams, types and positions. */
export function traceAppend(
  inputs: readonly AppendInput[],
  append: () => Promise<AppendResult[]>,
): Promise<AppendResult[]> {
  const events = inputs.flatMap((i) => i.events);
  return startSpan(
    tracer,
    "event-store append",
    async (span) => {
      const results = await append();
      const positions = results.flatMap((r) => r.positions);
      span.setAttribute("cairn.event.positions", positions);
      if (positions.length > 0) span.setAttribute("cairn.event.position", Math.max(...positions));
      return results;
    },
    {
      attributes: {
        "db.system.name": "postgresql",
        "cairn.stream.ids": inputs.map((i) => i.streamId),
        "cairn.event.types": events.map((e) => e.type),
        "cairn.event.count": events.length,
        "cairn.tenant": inputs[0]?.meta.tenant ?? "",
      },
    },
  );
}

/** What one append must hold to: each stream once, each event id once. */
export function checkAppendInputs(inputs: readonly AppendInput[]): void {
  const streamIds = inputs.map((i) => i.streamId);
  if (new Set(streamIds).size !== streamIds.length) {
    throw new Error("appendToStreams: each stream may appear once per append");
  }
  const eventIds = inputs.flatMap((i) => i.events.map((e) => e.eventId));
  if (new Set(eventIds).size !== eventIds.length) throw new Error("appendToStreams: duplicate event ids");
}

async function appendWithRetry(pool: pg.Pool, inputs: readonly AppendInput[]): Promise<AppendResult[]> {
  checkAppendInputs(inputs);
  // A concurrent append that was not yet committed when this one checked versions, event ids
  // and reservations surfaces as a unique violation (after it committed). Checking again then
  // gives the right answer: a version conflict, the original result of a retry, a taken key,
  // or (for expectedVersion "any") simply the next version.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await appendOnce(pool, inputs);
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= 20) throw error;
    }
  }
}

export type AppendRow = {
  stream_id: string;
  event_id: string | null;
  version: number;
  event_position: string | null;
  replayed: boolean;
};

function detailOf(detail: string | undefined): Record<string, unknown> {
  try {
    return JSON.parse(detail ?? "{}") as Record<string, unknown>;
  } catch {
    return {};
  }
}

/**
 * The typed error for an append refused by the log's checks (CA001-CA003, see the append
 * migration), or undefined for any other SQLSTATE.
 */
export function appendRefusal(code: string | undefined, detail: string | undefined): Error | undefined {
  const d = detailOf(detail);
  if (code === "CA001") {
    return new VersionConflictError(
      String(d.streamId),
      d.expectedVersion as ExpectedVersion,
      Number(d.actualVersion),
    );
  }
  if (code === "CA002") return new ReservationTakenError(String(d.key), String(d.holderStreamId));
  if (code === "CA003") return new EventIdReuseError((d.eventIds as string[] | undefined) ?? []);
  return undefined;
}

/** The JSON an append function takes for these inputs. */
export function appendPayload(inputs: readonly AppendInput[]) {
  return inputs.map((input) => ({
    streamId: input.streamId,
    streamType: input.streamType,
    expectedVersion: input.expectedVersion,
    meta: input.meta,
    claim: input.reservations?.claim ?? [],
    release: input.reservations?.release ?? [],
    events: input.events.map((e) => ({
      eventId: e.eventId,
      type: e.type,
      schemaVersion: currentSchemaVersion[e.type],
      data: e.data,
    })),
  }));
}

/** The results of one append from the rows the log answered (a retry's: the first write's). */
export async function appendResults(
  pool: pg.Pool,
  inputs: readonly AppendInput[],
  rows: readonly AppendRow[],
): Promise<AppendResult[]> {
  if (rows.some((r) => r.replayed)) {
    return originalResults(
      pool,
      inputs,
      rows.map((r) => ({
        kind: "event",
        event_id: r.event_id as string,
        stream_id: r.stream_id,
        version: r.version,
        position: r.event_position as string,
      })),
    );
  }
  for (const input of inputs) for (const e of input.events) appended.add(1, { type: e.type });
  const positionsById = new Map(
    rows.filter((r) => r.event_id !== null).map((r) => [r.event_id, Number(r.event_position)]),
  );
  const versionByStream = new Map(
    rows.filter((r) => r.event_id === null).map((r) => [r.stream_id, r.version]),
  );
  return inputs.map((input) => ({
    streamId: input.streamId,
    nextVersion: versionByStream.get(input.streamId) ?? 0,
    positions: input.events.map((e) => positionsById.get(e.eventId) as number),
  }));
}

/** One call of `cairn_append`, committed on its own (one round trip). */
async function appendOnce(pool: pg.Pool, inputs: readonly AppendInput[]): Promise<AppendResult[]> {
  let rows: AppendRow[];
  try {
    ({ rows } = await pool.query<AppendRow>("select * from cairn_append($1::jsonb)", [
      JSON.stringify(appendPayload(inputs)),
    ]));
  } catch (error) {
    const { code, detail } = error as { code?: string; detail?: string };
    throw appendRefusal(code, detail) ?? error;
  }
  return appendResults(pool, inputs, rows);
}
