// One durable JetStream consumer per projection: the doorbell. It allows one unacknowledged
// message at a time (`max_ack_pending: 1`), so copies of a service take turns and events are
// applied in stream order; the projector reads from the log in batches when it is behind, so
// that costs little. A message carries the events of one commit (see the relay).
//
// ack: applied, already applied, or set aside as a dead letter. nak(delay): the event is being
// retried (the delay grows with its attempts), or a dependency is away (the delay grows with
// the deliveries). A message that is not even an event is recorded as a dead letter and
// terminated. Deliveries are not bounded here: the projector bounds the attempts of an event
// whose store answers, and an outage is waited out for as long as it lasts.
//
// Each delivered event is handled in a CONSUMER span `project <projection> <type>` of its own
// trace, linked to the relay's publish span of that event (its context travels in the
// message); the store's writes are its children. Redeliveries, dead letters and lag are metrics.
import { setTimeout as sleep } from "node:timers/promises";
import { type ConsumerLabels, countDeadLetter, countDelivery, watchProjectionConsumer } from "@cairn/bus";
import { type RelayedEvents, RelayedEventsSchema, type StoredEvent } from "@cairn/contracts";
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
import { isApplyRetryError } from "./apply-retry-error.ts";
import type { DeadLetter } from "./dead-letter.ts";
import type { DeadLetterStore } from "./dead-letter-store.ts";
import type { LiveProjector } from "./live-projector.ts";
import { backoffMs, type RetryPolicy } from "./retry-policy.ts";

const tracer = getTracer("@cairn/projection-runtime");

export type ProjectionConsumerOptions = {
  /** For the lag metrics (JetStream consumer info). */
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  durable: string;
  filterSubject: string;
  projector: LiveProjector;
  deadLetters: DeadLetterStore;
  /** The service, for metric labels. */
  service: string;
  logger: Logger;
  ackWaitMs: number;
  retry: RetryPolicy;
};

export type ProjectionConsumer = { stop(): Promise<void> };

/** A delivered event the projector could not apply (yet): retried with the message. */
class EventHandlingError extends Error {
  override readonly name = "EventHandlingError";
  readonly event: StoredEvent;
  override readonly cause: unknown;

  constructor(event: StoredEvent, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.event = event;
    this.cause = cause;
  }
}

/** Creates the durable consumer, or brings an existing one to this configuration. */
export async function ensureProjectionConsumer(
  options: Pick<ProjectionConsumerOptions, "jsm" | "stream" | "durable" | "filterSubject" | "ackWaitMs">,
): Promise<void> {
  const { jsm, stream, durable } = options;
  const tunable = {
    max_ack_pending: 1,
    max_deliver: -1,
    ack_wait: nanos(options.ackWaitMs),
    filter_subject: options.filterSubject,
  };
  try {
    await jsm.consumers.info(stream, durable);
    await jsm.consumers.update(stream, durable, tunable);
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound))
      throw error;
    await jsm.consumers
      .add(stream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ...tunable,
      })
      .catch(async (cause: unknown) => {
        // Another copy created it first: fine.
        if (!(await jsm.consumers.info(stream, durable).catch(() => undefined))) throw cause;
      });
  }
}

function decodeEnvelope(msg: JsMsg): RelayedEvents | DeadLetter {
  const text = new TextDecoder().decode(msg.data);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return {
      event: null,
      reason: "not_json",
      error: "the message is not valid JSON",
      attempts: msg.info.deliveryCount,
      raw: text.slice(0, 10_000),
    };
  }
  const parsed = RelayedEventsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      event: null,
      reason: "bad_envelope",
      error: `not a message of stored events: ${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`.trim(),
      attempts: msg.info.deliveryCount,
      raw: text.slice(0, 10_000),
    };
  }
  return parsed.data as RelayedEvents;
}

function isDeadLetter(value: RelayedEvents | DeadLetter): value is DeadLetter {
  return "reason" in value && "attempts" in value && !("events" in value);
}

export async function startProjectionConsumer(
  options: ProjectionConsumerOptions,
): Promise<ProjectionConsumer> {
  const { js, projector, logger } = options;
  const name = projector.projection.name;
  const log = logger.child({ projection: name, consumer: options.durable });
  let stopping = false;
  let messages: ConsumerMessages | undefined;
  const labels: ConsumerLabels = { service: options.service, projection: name, consumer: options.durable };
  const unwatch = watchProjectionConsumer({ nc: options.nc, stream: options.stream, labels });

  async function handle(msg: JsMsg): Promise<void> {
    countDelivery(msg, labels);
    const decoded = decodeEnvelope(msg);
    if (isDeadLetter(decoded)) {
      try {
        const generation = (await projector.projection.generations.active()) ?? 0;
        await options.deadLetters.record(name, generation, [decoded]);
        log.error(
          { seq: msg.seq, reason: decoded.reason, error: decoded.error },
          "unreadable message dead-lettered",
        );
        countDeadLetter(labels);
        msg.term();
      } catch (error) {
        log.warn({ err: error, seq: msg.seq }, "could not record a dead letter; retrying");
        msg.nak(backoffMs(options.retry, msg.info.deliveryCount));
      }
      return;
    }
    let lastBeat = Date.now();
    const heartbeat = () => {
      // Long catch-ups keep the message ours (ack_wait restarts).
      if (Date.now() - lastBeat > Math.min(5000, options.ackWaitMs / 3)) {
        lastBeat = Date.now();
        msg.working();
      }
    };
    try {
      // The first event's handling applies what the log holds up to it and beyond; the
      // others are then found applied. Each has its span, linked to its publish.
      for (const [i, event] of decoded.events.entries()) {
        await handleEvent(msg, event, decoded.publishContexts[i], heartbeat);
      }
      msg.ack();
    } catch (failure) {
      const { cause: error, event } = failure as EventHandlingError;
      projector.reset();
      const delay = isApplyRetryError(error)
        ? error.retryInMs
        : backoffMs(options.retry, msg.info.deliveryCount);
      log.warn(
        {
          err: (error as Error).message,
          position: event.position,
          type: event.type,
          deliveries: msg.info.deliveryCount,
          retryInMs: delay,
        },
        "projection failed; will retry",
      );
      msg.nak(delay);
    }
  }

  /** Handles one event of a message in its span; a failure is thrown with the event it was for. */
  function handleEvent(
    msg: JsMsg,
    event: StoredEvent,
    publishContext: Record<string, string> | undefined,
    heartbeat: () => void,
  ): Promise<void> {
    return withLogFields({ tenant: event.meta.tenant, agent: event.meta.actor }, () =>
      startLinkedSpan(
        tracer,
        `project ${name} ${event.type}`,
        publishContext,
        async (span) => {
          try {
            const outcome = await projector.handle(event, heartbeat);
            span.setAttribute("cairn.projection.outcome", outcome.kind);
            if (outcome.kind === "not_in_log") countDeadLetter(labels);
          } catch (error) {
            throw new EventHandlingError(event, error);
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
        if (stopping) break;
        messages = await consumer.consume({ max_messages: 8 });
        // Stopped while the consumer was being set up: close what stop() could not see.
        if (stopping) {
          await messages.close().catch(() => undefined);
          break;
        }
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
