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

/** JetStream API error 10058: a stream with that name (and another configuration) exists. */
const streamNameInUse = 10058;

/** How long JetStream remembers an event id to drop a republished copy (`Nats-Msg-Id`). */
export const eventDuplicateWindowMs = 120_000;

/**
 * Creates the `CAIRN_EVENTS` stream (subjects `cairn.evt.>`, file storage, a 2-minute
 * duplicate window) or brings an existing one to that configuration. Safe to call from
 * every service at start, concurrently.
 */
export async function ensureEventStream(jsm: JetStreamManager): Promise<StreamInfo> {
  const wanted = {
    subjects: [`${eventSubjectPrefix}.>`],
    duplicate_window: nanos(eventDuplicateWindowMs),
  };
  try {
    const info = await jsm.streams.info(eventStreamName);
    const same =
      info.config.subjects?.length === 1 &&
      info.config.subjects[0] === wanted.subjects[0] &&
      info.config.duplicate_window === wanted.duplicate_window;
    return same ? info : await jsm.streams.update(eventStreamName, wanted);
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
      num_replicas: 1,
    });
  } catch (error) {
    // Another service created it between our info and add.
    if (error instanceof JetStreamApiError && error.code === streamNameInUse) {
      return jsm.streams.info(eventStreamName);
    }
    throw error;
  }
}
