import { eventStreamName, eventSubjectPrefix } from "@cairn/contracts";
import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
  type StreamInfo,
} from "@nats-io/jetstream";
import { nanos } from "@nats-io/nats-core";
import { z } from "zod";

/** JetStream API error 10058: a stream with that name (and another configuration) exists. */
const streamNameInUse = 10058;

/** JetStream API errors that mean the servers cannot hold the replicas asked for. */
const replicasRefused = new Set([
  10005, // no suitable peers for placement: fewer JetStream servers than replicas (or some away)
  10074, // replicas > 1 not supported in non-clustered mode
]);

/** How long JetStream remembers an event id to drop a republished copy (`Nats-Msg-Id`). */
export const eventDuplicateWindowMs = 120_000;

/** JetStream keeps at most five copies of a stream. */
const maxReplicas = 5;

/**
 * `CAIRN_EVENT_STREAM_REPLICAS`: on how many NATS servers the event stream (and with it every
 * projection's consumer, which follows its stream) is kept. 1 for a single nats-server; 3 in
 * a three-node JetStream cluster, which then goes on through the loss of any one server.
 */
export const eventStreamReplicasSetting = z.coerce
  .number()
  .int("the number of replicas is a whole number")
  .min(1, "the event stream needs at least 1 replica")
  .max(maxReplicas, `JetStream keeps at most ${maxReplicas} replicas of a stream`)
  .default(1);

export type EventStreamOptions = {
  /** Servers that keep a copy of the stream (default 1). */
  replicas?: number;
};

const replicasHint =
  "set CAIRN_EVENT_STREAM_REPLICAS to at most the number of JetStream servers in the NATS cluster " +
  "(1 for a single nats-server), or start the servers that are missing";

/** The event stream could not be given the replicas asked for: a setting that does not fit the NATS it runs on. */
export class EventStreamReplicasError extends Error {
  override readonly name = "EventStreamReplicasError";
  readonly code = "event_stream_replicas_unavailable" as const;
  readonly hint = replicasHint;
  readonly replicas: number;

  constructor(replicas: number, reason: string, options?: { cause?: unknown }) {
    super(
      `the event stream ${eventStreamName} wants ${replicas} replicas, but ${reason}: ${replicasHint}`,
      options,
    );
    this.replicas = replicas;
  }
}

export function isEventStreamReplicasError(error: unknown): error is EventStreamReplicasError {
  return error instanceof EventStreamReplicasError;
}

const notClustered = "NATS is a single server, not a JetStream cluster";

function refusedReplicas(error: unknown, replicas: number): unknown {
  if (!(error instanceof JetStreamApiError && replicasRefused.has(error.code))) return error;
  const reason =
    error.code === 10074
      ? notClustered
      : `the JetStream cluster has no ${replicas} servers to place them on (${error.message})`;
  return new EventStreamReplicasError(replicas, reason, { cause: error });
}

/**
 * A single nats-server refuses a new stream with more than one replica, but takes an update of
 * an existing one to more without complaint and goes on keeping one copy (nats-server 2.10):
 * so before an update, the stream must be in a cluster.
 */
function assertClustered(info: StreamInfo, replicas: number): void {
  if (replicas > 1 && !info.cluster?.name) throw new EventStreamReplicasError(replicas, notClustered);
}

/**
 * Creates the `CAIRN_EVENTS` stream (subjects `cairn.evt.>`, file storage, a 2-minute
 * duplicate window, `replicas` copies) or brings an existing one to that configuration (a
 * cluster moves it to more or fewer servers in place). Safe to call from every service at
 * start, concurrently. Fails with `EventStreamReplicasError` when NATS cannot keep that many
 * copies.
 */
export async function ensureEventStream(
  jsm: JetStreamManager,
  options: EventStreamOptions = {},
): Promise<StreamInfo> {
  const replicas = eventStreamReplicasSetting.parse(options.replicas);
  const wanted = {
    subjects: [`${eventSubjectPrefix}.>`],
    duplicate_window: nanos(eventDuplicateWindowMs),
    num_replicas: replicas,
  };
  try {
    const info = await jsm.streams.info(eventStreamName);
    assertClustered(info, replicas);
    const same =
      info.config.subjects?.length === 1 &&
      info.config.subjects[0] === wanted.subjects[0] &&
      info.config.duplicate_window === wanted.duplicate_window &&
      info.config.num_replicas === replicas;
    if (same) return info;
    return await jsm.streams.update(eventStreamName, wanted).catch((error: unknown) => {
      throw refusedReplicas(error, replicas);
    });
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
  }
  try {
    return await jsm.streams.add({
      name: eventStreamName,
      ...wanted,
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
    });
  } catch (error) {
    // Another service created it between our info and add.
    if (error instanceof JetStreamApiError && error.code === streamNameInUse) {
      return jsm.streams.info(eventStreamName);
    }
    throw refusedReplicas(error, replicas);
  }
}
