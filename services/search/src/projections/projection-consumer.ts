// One durable JetStream consumer per projection. It allows one unacknowledged message at a
// time (`max_ack_pending: 1`), so copies of the service take turns and events are applied in
// stream order; the projector batches from the log when it is behind, so that costs little.
//
// ack: applied, or already applied (a duplicate). nak(delay): a transient failure (Redis,
// Postgres or the embedding endpoint down), retried with exponential backoff. term: an event
// that can never apply, after its dead-letter record. After `maxDeliver` failed deliveries
// the message is terminated too; the event is not lost: the next event, or the periodic
// catch-up, reads it from the log.
//
// Each delivered event is handled in a CONSUMER span `project <projection> <type>` of its own
// trace, linked to the relay's publish span (the message headers); the RediSearch and
// pgvector writes are its children. Redeliveries, dead letters and lag are metrics.

import { setTimeout as sleep } from "node:timers/promises";
import { type ConsumerLabels, countDeadLetter, countDelivery, watchProjectionConsumer } from "@cairn/bus";
import { type StoredEvent, StoredEventSchema } from "@cairn/contracts";
import { getTracer, type Logger, SpanKind, startLinkedSpan, withLogFields } from "@cairn/telemetry";
import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from "@nats-io/jetstream";
import { type NatsConnection, nanos } from "@nats-io/nats-core";
import type { DeadLetter } from "./fold-events.ts";
import type { LiveProjector } from "./live-projector.ts";

const tracer = getTracer("@cairn/search");

export type ProjectionConsumerOptions = {
  /** For the lag metrics (JetStream consumer info). */
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  durable: string;
  filterSubject: string;
  projector: LiveProjector;
  logger: Logger;
  maxDeliver: number;
  ackWaitMs: number;
  /** Delay before redelivery after the n-th failed delivery (n from 1). */
  retryDelayMs: (deliveryCount: number) => number;
};

export type ProjectionConsumer = { stop(): Promise<void> };

// `term()` carries no reason: a reason needs nats-server 2.11, and an older server does not
// take `+TERM <reason>` as an acknowledgement at all (the message would block the consumer
// until its ack wait). The reason is in the dead-letter record and the log line instead.

/** Exponential backoff: base, 2·base, 4·base, … capped at max. */
export function exponentialBackoff(baseMs: number, maxMs: number): (deliveryCount: number) => number {
  return (n) => Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(n - 1, 30)));
}

/** Creates the durable consumer, or brings an existing one to this configuration. */
export async function ensureProjectionConsumer(
  options: Pick<
    ProjectionConsumerOptions,
    "jsm" | "stream" | "durable" | "filterSubject" | "maxDeliver" | "ackWaitMs"
  >,
): Promise<void> {
  const { jsm, stream, durable } = options;
  const tunable = {
    max_ack_pending: 1,
    max_deliver: options.maxDeliver,
    ack_wait: nanos(options.ackWaitMs),
    filter_subject: options.filterSubject,
  };
  try {
    await jsm.consumers.info(stream, durable);
    await jsm.consumers.update(stream, durable, tunable);
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound))
      throw error;
    await jsm.consumers.add(stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ...tunable,
    });
  }
}

function decodeEnvelope(msg: JsMsg): StoredEvent | DeadLetter {
  let raw: unknown;
  const text = new TextDecoder().decode(msg.data);
  try {
    raw = JSON.parse(text);
  } catch {
    return {
      event: null,
      reason: "not_json",
      error: "the message is not valid JSON",
      raw: text.slice(0, 10_000),
    };
  }
  const parsed = StoredEventSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      event: null,
      reason: "bad_envelope",
      error: `not a stored event: ${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`.trim(),
      raw: text.slice(0, 10_000),
    };
  }
  return parsed.data as StoredEvent;
}

function isDeadLetter(value: StoredEvent | DeadLetter): value is DeadLetter {
  return "reason" in value && "error" in value && !("position" in value);
}

export async function startProjectionConsumer(
  options: ProjectionConsumerOptions,
): Promise<ProjectionConsumer> {
  const { js, projector, logger, maxDeliver } = options;
  const name = projector.target.name;
  const log = logger.child({ projection: name, consumer: options.durable });
  let stopping = false;
  let messages: ConsumerMessages | undefined;
  const labels: ConsumerLabels = { service: "search", projection: name, consumer: options.durable };
  const unwatch = watchProjectionConsumer({ nc: options.nc, stream: options.stream, labels });

  async function handle(msg: JsMsg): Promise<void> {
    countDelivery(msg, labels);
    const decoded = decodeEnvelope(msg);
    log.trace({ seq: msg.seq, subject: msg.subject, deliveries: msg.info.deliveryCount }, "event message");
    if (isDeadLetter(decoded)) {
      try {
        const generation = (await projector.target.activeGeneration()) ?? 0;
        await projector.target.recordDeadLetters(generation, [decoded]);
        log.error(
          { seq: msg.seq, reason: decoded.reason, error: decoded.error },
          "unreadable event dead-lettered",
        );
        countDeadLetter(labels);
        msg.term();
      } catch (error) {
        log.warn({ err: error, seq: msg.seq }, "could not record a dead letter; retrying");
        msg.nak(options.retryDelayMs(msg.info.deliveryCount));
      }
      return;
    }
    const event = decoded;
    let lastBeat = Date.now();
    const heartbeat = () => {
      // Long catch-ups keep the message ours (ack_wait restarts).
      if (Date.now() - lastBeat > Math.min(5000, options.ackWaitMs / 3)) {
        lastBeat = Date.now();
        msg.working();
      }
    };
    await withLogFields({ tenant: event.meta.tenant, agent: event.meta.actor }, () =>
      startLinkedSpan(
        tracer,
        `project ${name} ${event.type}`,
        msg.headers,
        async (span) => {
          try {
            const outcome = await projector.handle(event, heartbeat);
            span.setAttribute("cairn.projection.outcome", outcome.kind);
            if (outcome.kind === "dead_lettered") {
              log.error(
                {
                  position: event.position,
                  type: event.type,
                  reason: outcome.deadLetter.reason,
                  error: outcome.deadLetter.error,
                },
                "event dead-lettered",
              );
              countDeadLetter(labels);
              msg.term();
            } else {
              msg.ack();
            }
          } catch (error) {
            projector.reset();
            const count = msg.info.deliveryCount;
            if (count >= maxDeliver) {
              log.error(
                { err: error, position: event.position, type: event.type, deliveries: count },
                "giving up on delivery; the log catch-up will apply the event when the failure clears",
              );
              countDeadLetter(labels);
              msg.term();
            } else {
              const delay = options.retryDelayMs(count);
              log.warn(
                {
                  err: (error as Error).message,
                  position: event.position,
                  type: event.type,
                  deliveries: count,
                  retryInMs: delay,
                },
                "projection failed; will retry",
              );
              msg.nak(delay);
            }
          }
        },
        {
          kind: SpanKind.CONSUMER,
          attributes: {
            "messaging.system": "nats",
            "messaging.operation.type": "process",
            "messaging.destination.name": msg.subject,
            "messaging.consumer.group.name": options.durable,
            "messaging.message.id": event.eventId,
            "messaging.message.delivery_count": msg.info.deliveryCount,
            "cairn.projection": name,
            "cairn.event.type": event.type,
            "cairn.event.position": event.position,
            "cairn.tenant": event.meta.tenant,
          },
        },
      ),
    );
  }

  const loop = (async () => {
    while (!stopping) {
      try {
        await ensureProjectionConsumer(options);
        const consumer = await js.consumers.get(options.stream, options.durable);
        messages = await consumer.consume({ max_messages: 8 });
        for await (const msg of messages) {
          await handle(msg);
          if (stopping) break;
        }
      } catch (error) {
        if (stopping) break;
        log.warn({ err: (error as Error).message }, "projection consumer interrupted; restarting");
        await sleep(1000);
      }
    }
  })();

  return {
    async stop() {
      stopping = true;
      unwatch();
      await messages?.close().catch(() => undefined);
      await loop;
    },
  };
}
