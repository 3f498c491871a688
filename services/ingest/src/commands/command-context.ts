// What every command handler shares: event metadata, ids (derived from an idempotency key
// when the caller gave one), loading a memory the caller may see, the expected-version check,
// and one atomic append whose reservation conflicts become `slot_taken` / `duplicate_content`.
//
// Idempotency: with a key, every id a command writes (streams, events, its causation id) is
// derived from tenant, command name and key, and its events carry the command's fingerprint
// (`meta.idempotency`). A retry finds the first event by its derived id: the same fingerprint
// answers the result rebuilt from those events and writes nothing; another one is
// `idempotency_conflict`. The record is the log itself, so it holds across restarts and for
// as long as the log. A command that wrote no event (a change to what already was) leaves no
// record: its retry runs again and again changes nothing.
//
// Memory text is sealed at this boundary (crypto-shredding, see contracts' sealed-content.ts):
// `commit` seals content, title and entity texts with the memory's seal just before the
// append, and `loadMemory` opens them right after reading, so the domain code only ever sees
// plain text and the log only ever holds sealed text.
import { randomUUID } from "node:crypto";
import {
  CairnError,
  type CairnEvent,
  type CommandName,
  decodeStoredEvent,
  type EventMeta,
  isCairnError,
  keyIdFor,
  type MemoryDocument,
  MemoryDocumentSchema,
  type NewEvent,
  openFoldedDocument,
  type Principal,
  type StoredEvent,
  streamIdFor,
  type WriteResult,
} from "@cairn/contracts";
import {
  type AppendInput,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  isReservationTakenError,
  isSealExistsError,
  type MemorySealStore,
  type StreamSnapshot,
} from "@cairn/event-store";
import {
  canChange,
  canSee,
  isMemoryEvent,
  isMemoryFoldError,
  keyTypeOf,
  type MemoryEvent,
} from "@cairn/memory-model";
import { currentTraceContext } from "@cairn/telemetry";
import {
  evolveMemory,
  foldMemory,
  initialMemoryState,
  type MemoryState,
  memorySnapshotModel,
} from "../domain/memory-stream.ts";
import { reservationChanges } from "../domain/reservations.ts";
import { commandFingerprint } from "./command-fingerprint.ts";
import { uuidFromName } from "./command-ids.ts";
import type { PlannedAppend } from "./planned-append.ts";
import { resultFromEvents } from "./previous-result.ts";
import { reservationError } from "./reservation-error.ts";
import { sealAppends } from "./seal-appends.ts";

export type { PlannedAppend };

export type IngestDeps = {
  store: EventStore;
  /** Secret for dry-run tokens; the same in every ingest copy. */
  tokenSecret: Uint8Array;
  /** Seals of memories (crypto-shredding); the service always has them. */
  seals?: MemorySealStore;
  now?: () => Date;
};

/**
 * How many events the idempotency lookup reads for a command recorded before events carried
 * their count (`meta.idempotency`): the most an earlier command wrote (a supersede with its key links).
 */
const maxEventsOfEarlierCommands = 80;

export type CommandBase = {
  principal: Principal;
  correlationId?: string | undefined;
  idempotencyKey?: string | undefined;
};

export class CommandContext {
  readonly name: CommandName;
  readonly principal: Principal;
  readonly now: Date;
  readonly meta: EventMeta;
  readonly #deps: IngestDeps;
  readonly #idempotencyKey: string | undefined;
  readonly #fingerprint: string | undefined;
  /** Seals of the memories this command opened: sealing their new text needs no other read. */
  readonly #knownSeals = new Map<string, Uint8Array>();
  #nextEvent = 0;

  constructor(deps: IngestDeps, name: CommandName, command: CommandBase & Record<string, unknown>) {
    this.#deps = deps;
    this.name = name;
    this.principal = command.principal;
    this.now = deps.now?.() ?? new Date();
    this.#idempotencyKey = command.idempotencyKey;
    this.#fingerprint = command.idempotencyKey === undefined ? undefined : commandFingerprint(command);
    this.meta = {
      tenant: command.principal.tenant,
      actor: command.principal.agent,
      correlationId: command.correlationId ?? randomUUID(),
      // The command that caused these events: every event it writes carries the same id.
      causationId: this.#derived("command", 0) ?? randomUUID(),
      traceContext: currentTraceContext(),
      recordedAt: this.now.toISOString(),
    };
  }

  get store(): EventStore {
    return this.#deps.store;
  }

  get tokenSecret(): Uint8Array {
    return this.#deps.tokenSecret;
  }

  /** The seal store, or `internal` when this ingest was started without one. */
  get seals(): MemorySealStore {
    const seals = this.#deps.seals;
    if (!seals) throw new CairnError("internal", "ingest runs without a seal store");
    return seals;
  }

  #derived(kind: string, index: number): string | undefined {
    if (this.#idempotencyKey === undefined) return undefined;
    return uuidFromName(
      "cairn-command",
      this.principal.tenant,
      this.name,
      this.#idempotencyKey,
      kind,
      String(index),
    );
  }

  /** A new stream id (a memory, a recall): the same on a retry with the same idempotency key. */
  newId(purpose: string): string {
    return this.#derived(`id:${purpose}`, 0) ?? randomUUID();
  }

  #eventId(): string {
    const index = this.#nextEvent;
    this.#nextEvent += 1;
    return this.#derived("event", index) ?? randomUUID();
  }

  /**
   * When a command ran before with this idempotency key, the result it had (rebuilt from the
   * events it wrote), so a retry writes nothing new; `idempotency_conflict` when that command
   * was another one (another body, or another sender).
   */
  async previousResult(): Promise<WriteResult | undefined> {
    const first = await this.#firstRecordedEvent();
    if (!first) return undefined;
    const count = first.meta.idempotency?.events ?? maxEventsOfEarlierCommands;
    const ids = Array.from({ length: count }, (_, i) => this.#derived("event", i) as string);
    const found = count === 1 ? [first] : await this.store.findEvents(ids);
    return resultFromEvents(first.streamId, found);
  }

  /** The first event a command with this idempotency key wrote, checked to be this command's. */
  async #firstRecordedEvent(): Promise<StoredEvent | undefined> {
    if (this.#idempotencyKey === undefined) return undefined;
    const [first] = await this.store.findEvents([this.#derived("event", 0) as string]);
    if (!first) return undefined;
    // Events written before commands carried a fingerprint are taken as this command's.
    const recorded = first.meta.idempotency?.fingerprint;
    if (recorded !== undefined && recorded !== this.#fingerprint) {
      throw new CairnError(
        "idempotency_conflict",
        `the idempotency key was already used for another ${this.name} (a different body, or another sender)`,
        {
          hint: "a retry must resend exactly the first request; for a new request use a new idempotency key",
          details: { command: this.name, firstWrittenAt: first.meta.recordedAt, position: first.position },
        },
      );
    }
    return first;
  }

  /** The memory with this id as the caller may see it, or `not_found`. */
  async loadMemory(id: string): Promise<MemoryState & { exists: true }> {
    const state = await this.loadMemoryState(id);
    if (!state.exists || !canSee(state.doc, this.principal)) {
      throw new CairnError("not_found", `no memory ${id} is visible to you`, {
        hint: "check the id (search or list to find it); private memories of other agents are not visible",
        details: { id },
      });
    }
    return state;
  }

  /** Like `loadMemory`, and the caller may change it (`forbidden` otherwise). */
  async loadMemoryToChange(id: string): Promise<MemoryState & { exists: true }> {
    const state = await this.loadMemory(id);
    if (!canChange(state.doc, this.principal)) {
      throw new CairnError("forbidden", `you may read ${id} but not change it`, {
        hint:
          state.doc.scope === "global"
            ? "global memories are changed by an admin of the tenant that wrote them"
            : "ask the agent that owns it, or the tenant's primary agent",
        details: { id },
      });
    }
    return state;
  }

  /**
   * A memory stream's state as the log holds it (any caller; visibility is checked by the
   * loaders), its text opened.
   */
  async loadMemoryState(id: string): Promise<MemoryState> {
    const states = await this.foldMemoryStates([id]);
    return this.#open(states.get(id) ?? initialMemoryState);
  }

  /**
   * Memory streams' states as the log holds them, by memory id (any caller), their text still
   * sealed: what a decision that reads no text (who may see a memory) needs. Each is folded
   * from its stream's snapshot and the events after it, so a memory revised a thousand times
   * is not read a thousand events long; all of them in one query. A stream that folded
   * `snapshotAfter` events or more keeps its state as its new snapshot (sealed, as in the log).
   */
  async foldMemoryStates(ids: readonly string[]): Promise<Map<string, MemoryState>> {
    const unique = [...new Set(ids)];
    const streamIds = unique.map((id) => streamIdFor("memory", id));
    // One stream (a command's load) by the single-stream query, several in one query.
    const read =
      streamIds.length === 1
        ? new Map([
            [
              streamIds[0] as string,
              await this.store.readStreamFromSnapshot(streamIds[0] as string, memorySnapshotModel),
            ],
          ])
        : await this.store.readStreamsFromSnapshots(streamIds, memorySnapshotModel);
    const out = new Map<string, MemoryState>();
    const passedOver: string[] = [];
    const toKeep: [string, StreamSnapshot][] = [];
    const keep = (id: string, state: MemoryState) => {
      if (state.exists)
        toKeep.push([
          id,
          {
            model: memorySnapshotModel,
            version: state.doc.version,
            position: state.position,
            state: state.doc,
          },
        ]);
    };
    for (const id of unique) {
      const { snapshot, events } = read.get(streamIdFor("memory", id)) ?? { snapshot: null, events: [] };
      // A snapshot that is not this memory's document at its version, or that the events after
      // it do not follow, is passed over: the whole stream is folded, and a sound snapshot kept.
      const folded = snapshot === null ? foldStream(events) : foldOntoSnapshot(events, snapshot, id);
      if (folded === undefined) {
        passedOver.push(id);
        continue;
      }
      out.set(id, folded);
      if (events.length >= snapshotAfter) keep(id, folded);
    }
    if (passedOver.length > 0) {
      const whole = await this.store.readStreams(passedOver.map((id) => streamIdFor("memory", id)));
      for (const id of passedOver) {
        const state = foldStream(whole.get(streamIdFor("memory", id)) ?? []);
        out.set(id, state);
        keep(id, state);
      }
    }
    // Only a shortcut: one not kept now is kept by a later load.
    await Promise.all(
      toKeep.map(([id, kept]) =>
        this.store.saveStreamSnapshot(streamIdFor("memory", id), kept).catch(() => undefined),
      ),
    );
    return out;
  }

  /** The state with the text its document keeps opened (as it is when this ingest has no seal store). */
  async #open(state: MemoryState): Promise<MemoryState> {
    const seals = this.#deps.seals;
    if (!seals || !state.exists) return state;
    const known = this.#knownSeals;
    const doc = await openFoldedDocument(state.doc, {
      async sealsFor(memoryIds) {
        const found = await seals.sealsFor(memoryIds);
        for (const [id, seal] of found) if (seal.state === "active") known.set(id, seal.seal);
        return found;
      },
    });
    return { ...state, doc };
  }

  /** The caller's version token must be the memory's current version. */
  checkVersion(doc: MemoryDocument, expectedVersion: number): void {
    if (doc.version === expectedVersion) return;
    throw new CairnError(
      "version_conflict",
      `${doc.id} is at version ${doc.version}, not ${expectedVersion}: it changed since you read it`,
      {
        hint: `read ${doc.id} again (version ${doc.version}), reapply your change to what it says now, and send it with expectedVersion ${doc.version}`,
        details: { id: doc.id, expectedVersion, currentVersion: doc.version },
      },
    );
  }

  /** An append to a memory stream, with the reservation changes its new state needs. */
  memoryAppend(
    id: string,
    before: MemoryState,
    events: CairnEvent[],
    expectedVersion: ExpectedVersion,
  ): { append: PlannedAppend; after: MemoryState } {
    const streamId = streamIdFor("memory", id);
    let version = before.exists ? before.doc.version : 0;
    const stored: StoredEvent[] = events.map((e) => {
      version += 1;
      return {
        eventId: "00000000-0000-4000-8000-000000000000",
        position: Number.MAX_SAFE_INTEGER,
        streamId,
        streamType: "memory",
        version,
        type: e.type,
        schemaVersion: 1,
        data: e.data,
        meta: this.meta,
      };
    });
    const after = (stored as MemoryEvent[]).reduce(evolveMemory, before);
    const reservations = reservationChanges(
      before.exists ? before.doc : undefined,
      after.exists ? after.doc : undefined,
    );
    return {
      after,
      append: {
        id,
        streamType: "memory",
        streamId,
        expectedVersion,
        events,
        reservations,
        ...(before.exists ? { current: { version: before.doc.version, position: before.position } } : {}),
      },
    };
  }

  /** `key.linked` appends for keys a memory carries now and did not before. */
  keyLinks(
    memoryId: string,
    keys: readonly string[],
    previousKeys: readonly string[],
    doc: MemoryDocument,
  ): PlannedAppend[] {
    const before = new Set(previousKeys.map((k) => keyIdFor(this.principal.tenant, k)));
    const appends = new Map<string, PlannedAppend>();
    for (const label of keys) {
      const keyId = keyIdFor(this.principal.tenant, label);
      if (before.has(keyId) || appends.has(keyId)) continue;
      appends.set(keyId, {
        id: keyId,
        streamType: "key",
        streamId: streamIdFor("key", keyId),
        expectedVersion: "any",
        events: [
          { type: "key.linked", data: { keyId, label, type: keyTypeOf(label, doc.entities), memoryId } },
        ],
      });
    }
    return [...appends.values()];
  }

  /**
   * Appends everything in one transaction and answers for the first append (the others
   * under `affected`). Reservation conflicts become `slot_taken` (with the holder's id)
   * or `duplicate_content`.
   */
  async commit(appends: PlannedAppend[], reported = appends.length): Promise<WriteResult> {
    const eventCount = appends.reduce((n, a) => n + a.events.length, 0);
    const meta: EventMeta =
      this.#fingerprint === undefined || eventCount === 0
        ? this.meta
        : { ...this.meta, idempotency: { fingerprint: this.#fingerprint, events: eventCount } };
    // Ids first: sealing may have to be done again, the events stay the same.
    const eventIds = appends.map((a) => a.events.map(() => this.#eventId()));
    const inputs = (sealed: PlannedAppend[]): AppendInput[] =>
      sealed.map((a, i) => ({
        streamId: a.streamId,
        streamType: a.streamType,
        expectedVersion: a.expectedVersion,
        events: a.events.map(
          (e, j) => ({ eventId: eventIds[i]?.[j], type: e.type, data: e.data }) as NewEvent,
        ),
        meta,
        ...(a.reservations ? { reservations: a.reservations } : {}),
      }));
    const tenant = this.principal.tenant;
    let results: AppendResult[];
    try {
      const sealed = await sealAppends(this.#deps.seals, tenant, appends, this.#knownSeals);
      try {
        results = await this.store.appendToStreams(inputs(sealed.appends), { seals: sealed.newSeals });
      } catch (error) {
        if (!isSealExistsError(error)) throw error;
        // A memory this command creates has a seal already (a concurrent retry made it):
        // seal with the stored one; a purged memory is refused by the seal store.
        const again = await sealAppends(this.#deps.seals, tenant, appends, this.#knownSeals, true);
        results = await this.store.appendToStreams(inputs(again.appends));
      }
    } catch (error) {
      if (isReservationTakenError(error)) throw reservationError(error.key, error.holderStreamId);
      throw error;
    }
    // The log answers an append whose event ids it holds already with the first one's
    // results: when a concurrent command with the same key but another body came first,
    // that is its write, not this one.
    if (meta.idempotency) await this.#firstRecordedEvent();
    const position = Math.max(0, ...results.flatMap((r) => r.positions));
    const shown = appends.slice(0, reported).map((a, i) => {
      const r = results[i] as AppendResult;
      const wrote = r.positions.length > 0;
      return {
        id: a.id,
        version: wrote ? r.nextVersion : (a.current?.version ?? r.nextVersion),
        position: wrote ? Math.max(...r.positions) : (a.current?.position ?? position),
      };
    });
    const [main, ...affected] = shown;
    if (!main) throw new Error("commit without an append");
    const anyWrite = results.some((r) => r.positions.length > 0);
    return {
      ...main,
      position: anyWrite ? Math.max(position, main.position) : main.position,
      ...(affected.length > 0 ? { affected } : {}),
    };
  }
}

/** Loads fold from a snapshot once this many events follow it (and keep a new one). */
const snapshotAfter = 32;

/**
 * The events after a snapshot folded onto the state it holds, or undefined when it does not
 * hold this memory's document at its version (or does not parse), or the events do not follow it.
 */
function foldOntoSnapshot(
  events: readonly StoredEvent[],
  snapshot: StreamSnapshot,
  id: string,
): MemoryState | undefined {
  const doc = MemoryDocumentSchema.safeParse(snapshot.state);
  if (!doc.success || doc.data.id !== id || doc.data.version !== snapshot.version) return undefined;
  try {
    return foldStream(events, { exists: true, doc: doc.data, position: snapshot.position });
  } catch (error) {
    if (isCairnError(error) && error.code === "internal") return undefined;
    throw error;
  }
}

/**
 * The state of a memory stream read from the log. The log is the truth: an event that does not
 * decode, or a stream the memory model cannot fold, is a damaged log, not a refusal.
 */
export function foldStream(
  events: readonly StoredEvent[],
  from: MemoryState = initialMemoryState,
): MemoryState {
  try {
    return foldMemory(events.map((e) => decodeStoredEvent(e)).filter(isMemoryEvent), from);
  } catch (cause) {
    if (!isMemoryFoldError(cause) && !(cause instanceof Error && cause.name === "EventDecodeError"))
      throw cause;
    throw new CairnError(
      "internal",
      `the log's stream of ${events[0]?.streamId ?? "a memory"} cannot be read`,
      {
        hint: "run `pnpm cairn doctor`; the stream's events do not follow each other",
        cause,
      },
    );
  }
}
