// The relay: publishes committed events from the Postgres log to JetStream, in log order.
//
// - One active relay per database: a session advisory lock held by the relay's own
//   connection. Other ingest copies wait in standby and take over when that connection goes.
// - Woken by LISTEN/NOTIFY (the log's insert trigger notifies on commit), not by polling. A
//   slow safety read (default every 30 s) covers a notification lost while reconnecting, and
//   a short retry runs only while a committed event is held back by an older open transaction.
// - One message carries the events of one commit (with group commit, many commands' events), a
//   large commit cut into pieces of at most 128 events or 512 KiB, always cut the same way. A
//   message's `Nats-Msg-Id` is its transaction and first position, so a message published
//   again (after a crash between publish and checkpoint, or a lost ack) is dropped by
//   JetStream's duplicate window; the checkpoint in Postgres moves only after JetStream
//   acknowledged. With JetStream fsyncing every message, this is what lets the relay keep up
//   with many writes a second: the disk syncs once per commit, not once per event.
// - NATS down: appends keep succeeding (the relay is not on the write path); the relay
//   retries with backoff and resumes from its checkpoint, so nothing is skipped.
// - Each event's publish is a PRODUCER span `publish <event type>` in the trace of the write
//   that appended it (its `meta.traceContext`); the message carries every such span's context,
//   to which the projections link their handling spans.
import { setTimeout as sleep } from "node:timers/promises";
import { ensureEventStream, eventHeaderNames } from "@cairn/bus";
import { eventStreamName, type RelayedEvents, relaySubject, type StoredEvent } from "@cairn/contracts";
import {
  appendNotificationChannel,
  type CommittedEvent,
  readCheckpoint,
  readCommitted,
  storeCheckpoint,
} from "@cairn/event-store";
import {
  type Context,
  currentTraceContext,
  extractTraceContext,
  getMeter,
  getTracer,
  injectTraceContext,
  type Logger,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@cairn/telemetry";
import { type JetStreamClient, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { headers, type NatsConnection } from "@nats-io/nats-core";
import pg from "pg";

const tracer = getTracer("@cairn/ingest");

/** Session advisory lock held by the active relay. */
export const relayLockKey = 0x4341_4952_4e02n;

export type RelayOptions = {
  /** For reading the log and the checkpoint. */
  pool: pg.Pool;
  /** For the relay's own connection (lock + LISTEN); same database as the pool. */
  databaseUrl: string;
  databaseRole?: string | undefined;
  nc: NatsConnection;
  logger: Logger;
  /** Checkpoint name in `cairn_checkpoints`. */
  name?: string;
  /** Events read from the log at once. */
  batchSize?: number;
  /** Messages in flight at once (acks awaited per window, in order). */
  window?: number;
  safetyReadMs?: number;
  standbyRetryMs?: number;
  publishTimeoutMs?: number;
  /** Servers that keep the event stream (`CAIRN_EVENT_STREAM_REPLICAS`; default 1). */
  eventStreamReplicas?: number;
};

export type RelayStatus = {
  active: boolean;
  /** The last position acknowledged by JetStream and checkpointed. */
  position: number;
  published: number;
  lastError: string | null;
};

export type Relay = {
  status(): RelayStatus;
  /** Resolves once the relay has published up to `position` (or rejects after `timeoutMs`). */
  waitFor(position: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
};

/** A commit's events per message at most, and their JSON size: larger commits go in pieces. */
export const maxEventsPerMessage = 128;
export const maxBytesPerMessage = 512 * 1024;

type Piece = { transactionId: string; events: StoredEvent[] };

/**
 * The messages for what was read: the events of each commit together, a commit larger than a
 * message cut greedily from its start. The relay resumes at a message boundary, so a piece
 * published again is cut as it was the first time. When the read stopped at its limit, its last
 * piece may be cut short: it waits for the next read.
 */
export function cutIntoMessages(read: readonly CommittedEvent[], readWasFull: boolean): Piece[] {
  const pieces: Piece[] = [];
  let current: Piece | undefined;
  let bytes = 0;
  for (const { transactionId, event } of read) {
    const size = JSON.stringify(event).length;
    if (
      !current ||
      current.transactionId !== transactionId ||
      current.events.length >= maxEventsPerMessage ||
      (bytes + size > maxBytesPerMessage && current.events.length > 0)
    ) {
      current = { transactionId, events: [] };
      pieces.push(current);
      bytes = 0;
    }
    current.events.push(event);
    bytes += size;
  }
  if (readWasFull && pieces.length > 1) pieces.pop();
  return pieces;
}

function messageHeaders(piece: Piece, lastPublishContext: Context) {
  const h = headers();
  const last = piece.events.at(-1) as StoredEvent;
  // The last event's write context, replaced by its publish span's when tracing is set up
  // (without a propagator, as in tests that do not set tracing up, injecting writes nothing).
  for (const [key, value] of Object.entries(last.meta.traceContext)) h.set(key, value);
  injectTraceContext(h, lastPublishContext);
  h.set(eventHeaderNames.position, String(last.position));
  h.set(eventHeaderNames.count, String(piece.events.length));
  return h;
}

export function startRelay(options: RelayOptions): Relay {
  const name = options.name ?? "relay:jetstream";
  const batchSize = options.batchSize ?? 500;
  const window = options.window ?? 32;
  const safetyReadMs = options.safetyReadMs ?? 30_000;
  const standbyRetryMs = options.standbyRetryMs ?? 2_000;
  const publishTimeoutMs = options.publishTimeoutMs ?? 5_000;
  const logger = options.logger.child({ component: "relay" });

  const status: RelayStatus = { active: false, position: 0, published: 0, lastError: null };
  let stopped = false;
  const stopping = new AbortController();
  /** A pause that ends early when the relay stops. */
  const pause = (ms: number) => sleep(ms, undefined, { signal: stopping.signal }).catch(() => {});
  let pending = true;
  let wake: (() => void) | undefined;
  const waiters = new Set<{ position: number; resolve: () => void }>();

  const notify = () => {
    pending = true;
    wake?.();
  };
  /** Sleeps until woken (a notification, stop) or the time is up. */
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      if (pending || stopped) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });
  const advance = (position: number) => {
    status.position = position;
    for (const waiter of waiters) {
      if (waiter.position <= position) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
  };

  /** A PRODUCER span per event, in the trace of the write that appended it. */
  function publishSpan(event: StoredEvent): { span: Span; context: Context } {
    const parent = extractTraceContext(event.meta.traceContext, ROOT_CONTEXT);
    const span: Span = tracer.startSpan(
      `publish ${event.type}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          "messaging.system": "nats",
          "messaging.operation.type": "send",
          "messaging.destination.name": relaySubject,
          "messaging.message.id": event.eventId,
          "cairn.event.type": event.type,
          "cairn.event.position": event.position,
          "cairn.tenant": event.meta.tenant,
        },
      },
      parent,
    );
    return { span, context: trace.setSpan(parent, span) };
  }

  /** Publishes one commit's piece: one message, a span per event. */
  function publishPiece(js: JetStreamClient, piece: Piece) {
    const spans = piece.events.map(publishSpan);
    // Each publish span's context, or the write's when tracing is not set up (as in headers).
    const publishContexts = spans.map(({ context: c }, i) => ({
      ...(piece.events[i] as StoredEvent).meta.traceContext,
      ...currentTraceContext(c),
    }));
    const body: RelayedEvents = { events: piece.events, publishContexts };
    const first = piece.events[0] as StoredEvent;
    return js
      .publish(relaySubject, JSON.stringify(body), {
        msgID: `${piece.transactionId}:${first.position}`,
        expect: { streamName: eventStreamName },
        headers: messageHeaders(piece, (spans.at(-1) as { context: Context }).context),
        timeout: publishTimeoutMs,
      })
      .then(
        (ack) => {
          for (const { span } of spans) {
            span.setAttribute("cairn.stream.seq", ack.seq);
            if (ack.duplicate) span.setAttribute("cairn.duplicate", true);
            span.end();
          }
          return ack;
        },
        (error: unknown) => {
          for (const { span } of spans) {
            span.recordException(error as Error);
            span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
            span.end();
          }
          throw error;
        },
      );
  }

  async function publishAll(js: JetStreamClient, pieces: Piece[]): Promise<void> {
    for (let start = 0; start < pieces.length; start += window) {
      const chunk = pieces.slice(start, start + window);
      // Sent in order on one connection, so JetStream stores them in order; acks awaited together.
      const acks = await Promise.allSettled(chunk.map((piece) => publishPiece(js, piece)));
      const failed = acks.findIndex((a) => a.status === "rejected");
      const acked = failed === -1 ? chunk : chunk.slice(0, failed);
      const last = acked.at(-1)?.events.at(-1);
      if (last) {
        await storeCheckpoint(options.pool, name, last.position);
        status.published += acked.reduce((n, p) => n + p.events.length, 0);
        advance(last.position);
      }
      if (failed !== -1) throw (acks[failed] as PromiseRejectedResult).reason;
    }
  }

  /** Relays until the lock connection fails or the relay stops. */
  async function relayWhileHoldingLock(client: pg.Client, isAlive: () => boolean): Promise<void> {
    let js: JetStreamClient | undefined;
    let backoff = 100;
    let heldBack = 10;
    advance(await readCheckpoint(options.pool, name));
    while (!stopped && isAlive()) {
      try {
        if (!js) {
          await ensureEventStream(await jetstreamManager(options.nc), {
            replicas: options.eventStreamReplicas,
          });
          js = jetstream(options.nc);
          // JetStream answers again: whatever failed before is behind us.
          status.lastError = null;
        }
        pending = false;
        const read = await readCommitted(client, { after: status.position, limit: batchSize });
        if (read.length > 0) {
          await publishAll(js, cutIntoMessages(read, read.length === batchSize));
          status.lastError = null;
          backoff = 100;
          heldBack = 10;
          pending = true;
          continue;
        }
        // Nothing readable. Is a committed event held back by an older transaction still open?
        const { rows } = await client.query<{ max: string | null }>(
          "select max(position) as max from cairn_events",
        );
        if (rows[0]?.max !== null && Number(rows[0]?.max) > status.position) {
          await pause(heldBack);
          heldBack = Math.min(heldBack * 2, 500);
          continue;
        }
        await nap(safetyReadMs);
      } catch (error) {
        if (!isAlive()) throw error;
        status.lastError = (error as Error).message;
        logger.warn(
          { err: error, position: status.position, retryInMs: backoff },
          "relay could not publish; retrying",
        );
        js = undefined;
        await pause(backoff);
        backoff = Math.min(backoff * 2, 2_000);
      }
    }
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (!stopped) {
      const client = new pg.Client({
        connectionString: options.databaseUrl,
        ...(options.databaseRole ? { options: `-c role=${options.databaseRole}` } : {}),
        application_name: "cairn-relay",
      });
      let alive = true;
      client.on("error", (error) => {
        alive = false;
        status.lastError = error.message;
        notify();
      });
      client.on("end", () => {
        alive = false;
        notify();
      });
      client.on("notification", notify);
      try {
        await client.connect();
        while (!stopped && alive) {
          const { rows } = await client.query<{ locked: boolean }>(
            "select pg_try_advisory_lock($1) as locked",
            [relayLockKey.toString()],
          );
          if (rows[0]?.locked) break;
          await pause(standbyRetryMs);
        }
        if (stopped || !alive) continue;
        await client.query(`listen ${appendNotificationChannel}`);
        status.active = true;
        failures = 0;
        logger.info("relay is active");
        await relayWhileHoldingLock(client, () => alive);
      } catch (error) {
        failures += 1;
        status.lastError = (error as Error).message;
        if (!stopped) logger.warn({ err: error }, "relay lost its database connection; reconnecting");
        await pause(Math.min(100 * 2 ** failures, 5_000));
      } finally {
        if (status.active) logger.info("relay is no longer active");
        status.active = false;
        // Ending the session releases the advisory lock for another copy.
        await client.end().catch(() => {});
      }
    }
  }

  // Events committed but not yet in JetStream, reported by the active relay when scraped.
  const backlog = getMeter("@cairn/ingest").createObservableGauge("cairn_relay_backlog_events", {
    description: "Events in the log that the active relay has not published to JetStream yet",
  });
  const observeBacklog = async (result: { observe: (value: number) => void }) => {
    if (!status.active) return;
    const { rows } = await options.pool.query<{ max: string | null }>(
      "select max(position) as max from cairn_events",
    );
    result.observe(Math.max(0, Number(rows[0]?.max ?? 0) - status.position));
  };
  backlog.addCallback(observeBacklog);

  const running = run();

  return {
    status: () => ({ ...status }),
    waitFor(position, timeoutMs = 10_000) {
      if (status.position >= position) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const waiter = {
          position,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(
              `relay did not reach position ${position} within ${timeoutMs} ms (at ${status.position})`,
            ),
          );
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    async stop() {
      stopped = true;
      backlog.removeCallback(observeBacklog);
      stopping.abort();
      notify();
      await running;
    },
  };
}
