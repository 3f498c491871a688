// Metrics of the projections' durable JetStream consumers, the same for every service that
// projects events: how far behind each projection is (events published but not yet applied,
// and the age of the oldest of them), how often an event came again (a redelivery: a nak,
// an ack that timed out) and how many were given up on (dead letters).
//
// Lag is read from JetStream when metrics are collected (a scrape): the consumer's pending
// and unacknowledged counts, and the publish time of the first message past its ack floor.
// Every copy of a service reports its consumer; the dashboard takes the max per projection.
import { getMeter } from "@cairn/telemetry";
import { type JetStreamManager, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";

/** Which projection: `service` (search, ranking), `projection` (lexical, keys…), durable `consumer`. */
export type ConsumerLabels = { service: string; projection: string; consumer: string };

const meter = getMeter("@cairn/bus");
const redeliveries = meter.createCounter("cairn_consumer_redeliveries", {
  description: "Event messages delivered again to a projection's consumer (after a nak or an ack timeout)",
});
const deadLetters = meter.createCounter("cairn_dead_letters", {
  description: "Events a projection gave up on (recorded as dead letters or terminated)",
});
const lagEvents = meter.createObservableGauge("cairn_projection_lag_events", {
  description: "Events published to JetStream that a projection has not applied yet",
});
const lagSeconds = meter.createObservableGauge("cairn_projection_lag_seconds", {
  description: "Age of the oldest event a projection has not applied yet (0 when it is current)",
  unit: "s",
});

/** Counts a delivery: a redelivery when the message came before. */
export function countDelivery(msg: { info: { deliveryCount: number } }, labels: ConsumerLabels): void {
  if (msg.info.deliveryCount > 1) redeliveries.add(1, labels);
}

/** Counts an event the projection gave up on. */
export function countDeadLetter(labels: ConsumerLabels, count = 1): void {
  deadLetters.add(count, labels);
}

type Lag = { events: number; seconds: number };

type Watched = {
  labels: ConsumerLabels;
  stream: string;
  nc: NatsConnection;
  jsm?: JetStreamManager;
  /** One JetStream read per collection serves both gauges. */
  sample?: { at: number; lag: Promise<Lag | undefined> };
};

const watched = new Set<Watched>();
const sampleTtlMs = 1000;
const sampleTimeoutMs = 2000;

async function readLag(entry: Watched): Promise<Lag | undefined> {
  if (entry.nc.isClosed()) return undefined;
  entry.jsm ??= await jetstreamManager(entry.nc);
  const info = await entry.jsm.consumers.info(entry.stream, entry.labels.consumer);
  const events = info.num_pending + info.num_ack_pending;
  if (events === 0) return { events: 0, seconds: 0 };
  const oldest = await entry.jsm.streams
    .getMessage(entry.stream, { seq: info.ack_floor.stream_seq + 1 })
    .catch(() => null);
  const seconds = oldest ? Math.max(0, (Date.now() - oldest.time.getTime()) / 1000) : 0;
  return { events, seconds };
}

function sampleOf(entry: Watched): Promise<Lag | undefined> {
  const now = Date.now();
  if (!entry.sample || now - entry.sample.at > sampleTtlMs) {
    const timeout = new Promise<undefined>((resolve) =>
      setTimeout(() => resolve(undefined), sampleTimeoutMs).unref(),
    );
    entry.sample = { at: now, lag: Promise.race([readLag(entry).catch(() => undefined), timeout]) };
  }
  return entry.sample.lag;
}

let registered = false;

function register(): void {
  if (registered) return;
  registered = true;
  lagEvents.addCallback(async (result) => {
    const entries = [...watched];
    const lags = await Promise.all(entries.map(sampleOf));
    entries.forEach((entry, i) => {
      const lag = lags[i];
      if (lag) result.observe(lag.events, entry.labels);
    });
  });
  lagSeconds.addCallback(async (result) => {
    const entries = [...watched];
    const lags = await Promise.all(entries.map(sampleOf));
    entries.forEach((entry, i) => {
      const lag = lags[i];
      if (lag) result.observe(lag.seconds, entry.labels);
    });
  });
}

/**
 * Reports a projection consumer's lag from now on, and shows its redelivery and dead-letter
 * counters from zero. Returns the function that stops reporting it.
 */
export function watchProjectionConsumer(options: {
  nc: NatsConnection;
  stream: string;
  labels: ConsumerLabels;
}): () => void {
  register();
  const entry: Watched = { labels: options.labels, stream: options.stream, nc: options.nc };
  watched.add(entry);
  redeliveries.add(0, options.labels);
  deadLetters.add(0, options.labels);
  return () => {
    watched.delete(entry);
  };
}
