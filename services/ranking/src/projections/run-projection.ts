// Runs a read-model projection from the JetStream event stream into Redis.
//
// Exactly-once effect over at-least-once delivery: each event's writes and the projection's
// checkpoint (the stream sequence it has applied) commit in one MULTI/EXEC, watched so that
// two copies of the service can never both apply one event; a redelivered event at or below
// the checkpoint is acknowledged and skipped. `max_ack_pending: 1` keeps the log order across
// copies sharing the durable consumer, which the read-modify-write projections rely on.
//
// Each delivered event is handled in a CONSUMER span `project <projection> <type>` of its own
// trace, linked to the relay's publish span (the message headers); the Redis commands are
// its children. Redeliveries, poison events (dead letters) and the consumer's lag are metrics.

import {
  type ConsumerLabels,
  countDeadLetter,
  countDelivery,
  ensureEventStream,
  watchProjectionConsumer,
} from "@cairn/bus";
import { eventStreamName, eventSubjectPrefix, type StoredEvent, StoredEventSchema } from "@cairn/contracts";
import {
  getTracer,
  type Logger,
  SpanKind,
  SpanStatusCode,
  startLinkedSpan,
  withLogFields,
} from "@cairn/telemetry";
import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  type JsMsg,
  jetstream,
  jetstreamManager,
} from "@nats-io/jetstream";
import { type NatsConnection, nanos } from "@nats-io/nats-core";
import type { ChainableCommander, Redis } from "ioredis";

export type ProjectionIo = {
  /** For reads of the state before this event. */
  redis: Redis;
  /** Writes, committed with the checkpoint. */
  tx: ChainableCommander;
};

export type Projection = {
  name: string;
  canHandle: (type: string) => boolean;
  apply: (event: StoredEvent, io: ProjectionIo) => Promise<void>;
};

export type Checkpoint = { seq: number; position: number };

export type RunningProjection = {
  name: string;
  /** The highest log position applied (read from Redis, so any copy's progress counts). */
  position: () => Promise<number>;
  stop: () => Promise<void>;
};

export type RunProjectionOptions = {
  nc: NatsConnection;
  redis: Redis;
  checkpointKey: string;
  consumerName: string;
  projection: Projection;
  logger: Logger;
};

const tracer = getTracer("@cairn/ranking");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function readCheckpoint(redis: Redis, key: string): Promise<Checkpoint> {
  const [seq, position] = await redis.hmget(key, "seq", "position");
  return { seq: Number(seq ?? 0), position: Number(position ?? 0) };
}

class PoisonEventError extends Error {
  override readonly name = "PoisonEventError";
}

function decode(msg: JsMsg): StoredEvent {
  let raw: unknown;
  try {
    raw = msg.json();
  } catch (cause) {
    throw new PoisonEventError("event is not JSON", { cause });
  }
  const parsed = StoredEventSchema.safeParse(raw);
  if (!parsed.success)
    throw new PoisonEventError(`event does not match StoredEvent: ${parsed.error.message}`);
  return parsed.data;
}

/** Applies one message; false when the checkpoint moved under us (another copy) and it must be re-run. */
async function applyMessage(options: RunProjectionOptions, msg: JsMsg, event: StoredEvent): Promise<boolean> {
  const { redis, checkpointKey, projection } = options;
  await redis.watch(checkpointKey);
  try {
    const checkpoint = await readCheckpoint(redis, checkpointKey);
    if (msg.seq <= checkpoint.seq) {
      await redis.unwatch();
      return true;
    }
    const tx = redis.multi();
    if (projection.canHandle(event.type)) await projection.apply(event, { redis, tx });
    tx.hset(checkpointKey, { seq: msg.seq, position: Math.max(checkpoint.position, event.position) });
    const results = await tx.exec();
    if (results === null) return false;
    const failed = results.find(([error]) => error !== null);
    if (failed) throw failed[0];
    return true;
  } catch (error) {
    await redis.unwatch().catch(() => undefined);
    throw error;
  }
}

async function ensureConsumer(options: RunProjectionOptions): Promise<void> {
  const jsm = await jetstreamManager(options.nc);
  const checkpoint = await readCheckpoint(options.redis, options.checkpointKey);
  const existing = await jsm.consumers.info(eventStreamName, options.consumerName).catch(() => undefined);
  // A read model emptied (or restored from an older copy) behind a consumer that has moved on:
  // start the consumer again from the checkpoint so nothing is skipped.
  if (existing && existing.ack_floor.stream_seq > checkpoint.seq) {
    options.logger.warn(
      { consumer: options.consumerName, ackFloor: existing.ack_floor.stream_seq, checkpoint: checkpoint.seq },
      "read model is behind its consumer; replaying from the checkpoint",
    );
    await jsm.consumers.delete(eventStreamName, options.consumerName).catch(() => undefined);
  } else if (existing) {
    return;
  }
  await jsm.consumers
    .add(eventStreamName, {
      durable_name: options.consumerName,
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(30_000),
      max_ack_pending: 1,
      filter_subject: `${eventSubjectPrefix}.>`,
      ...(checkpoint.seq > 0
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: checkpoint.seq + 1 }
        : { deliver_policy: DeliverPolicy.All }),
    })
    .catch(async (error: unknown) => {
      // Another copy created it first: fine.
      if (!(await jsm.consumers.info(eventStreamName, options.consumerName).catch(() => undefined)))
        throw error;
    });
}

/** Creates the event stream if no service has yet (safe concurrently), retrying while NATS is away. */
async function waitForStream(options: RunProjectionOptions, stopped: () => boolean): Promise<void> {
  let warned = false;
  while (!stopped()) {
    try {
      await ensureEventStream(await jetstreamManager(options.nc));
      return;
    } catch (error) {
      if (!warned)
        options.logger.warn({ err: error, stream: eventStreamName }, "event stream not reachable yet");
      warned = true;
      await sleep(500);
    }
  }
}

export function runProjection(options: RunProjectionOptions): RunningProjection {
  const { projection, logger } = options;
  let stopping = false;
  let messages: ConsumerMessages | undefined;
  const labels: ConsumerLabels = {
    service: "ranking",
    projection: projection.name,
    consumer: options.consumerName,
  };

  const handle = async (msg: JsMsg) => {
    countDelivery(msg, labels);
    let event: StoredEvent;
    try {
      event = decode(msg);
    } catch (error) {
      logger.error({ err: error, seq: msg.seq, projection: projection.name }, "poison event; terminated");
      countDeadLetter(labels);
      msg.term();
      return;
    }
    await withLogFields({ tenant: event.meta.tenant, agent: event.meta.actor }, () =>
      startLinkedSpan(
        tracer,
        `project ${projection.name} ${event.type}`,
        msg.headers,
        async (span) => {
          for (let attempt = 0; ; attempt += 1) {
            try {
              if (await applyMessage(options, msg, event)) break;
            } catch (error) {
              logger.warn(
                { err: error, seq: msg.seq, type: event.type, projection: projection.name },
                "apply failed",
              );
              span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
              msg.nak(Math.min(5000, 200 * 2 ** attempt));
              return;
            }
          }
          msg.ack();
        },
        {
          kind: SpanKind.CONSUMER,
          attributes: {
            "messaging.system": "nats",
            "messaging.operation.type": "process",
            "messaging.destination.name": msg.subject,
            "messaging.consumer.group.name": options.consumerName,
            "messaging.message.id": event.eventId,
            "messaging.message.delivery_count": msg.info.deliveryCount,
            "cairn.projection": projection.name,
            "cairn.event.type": event.type,
            "cairn.event.position": event.position,
            "cairn.tenant": event.meta.tenant,
          },
        },
      ),
    );
  };
  const unwatch = watchProjectionConsumer({ nc: options.nc, stream: eventStreamName, labels });

  const loop = (async () => {
    while (!stopping) {
      try {
        await waitForStream(options, () => stopping);
        if (stopping) break;
        await ensureConsumer(options);
        const js = jetstream(options.nc);
        const consumer = await js.consumers.get(eventStreamName, options.consumerName);
        messages = await consumer.consume({ max_messages: 64 });
        logger.info({ projection: projection.name, consumer: options.consumerName }, "projection running");
        for await (const msg of messages) {
          await handle(msg);
          if (stopping) break;
        }
      } catch (error) {
        if (!stopping)
          logger.warn({ err: error, projection: projection.name }, "projection interrupted; retrying");
      }
      if (!stopping) await sleep(500);
    }
  })();

  return {
    name: projection.name,
    position: async () => (await readCheckpoint(options.redis, options.checkpointKey)).position,
    stop: async () => {
      stopping = true;
      unwatch();
      messages?.stop();
      await Promise.race([loop, sleep(5000)]);
    },
  };
}
