// Sealed memory text: how the content of a memory is kept in the append-only log so that it
// can still be erased (crypto-shredding).
//
// Each memory has its own seal (a 256-bit key), held outside the log (Postgres table
// `cairn_memory_seals`, never in an event or a message). Ingest seals the text fields of a
// memory's events with it (AES-256-GCM, a fresh 96-bit IV per field, the memory id as
// associated data so a sealed value cannot be moved to another memory). Whoever projects or
// reads the log opens them with the seal. Purging a memory destroys its seal: from then on the
// sealed fields in the log, in JetStream and in any backup of either are unreadable noise,
// and every projection or rebuild sees the memory without text.
//
// Sealed fields: `content`, `title` and the text of each extracted entity (they are made
// from the content). Labels an agent chooses (slot, tags, keys, aliases), links, source,
// reasons and notes are not sealed: they must stay readable for uniqueness, the key graph and
// filters, and must not carry personal data. A value that does not start with `sealedPrefix`
// is plain text (events written before sealing, test fixtures) and passes through unchanged.
//
// Pure: no I/O here. The seal ring that finds the seals is passed in.
import { createCipheriv, createDecipheriv, randomBytes, randomFillSync } from "node:crypto";
import type { StoredEvent } from "./events/envelope.ts";

export const sealedPrefix = "cairn-sealed:v1:";
export const sealBytes = 32;
const ivBytes = 12;
const tagBytes = 16;

/** A memory's seal as the sealRing knows it; a memory with no entry never had one. */
export type SealState = { state: "active"; seal: Uint8Array } | { state: "shredded"; shreddedAt: string };

/** Finds the seals of memories (one round trip for many). */
export type SealRing = {
  sealsFor(memoryIds: readonly string[]): Promise<Map<string, SealState>>;
};

export class SealedContentError extends Error {
  readonly code = "sealed_content_unreadable" as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SealedContentError";
  }
}

export function isSealed(value: unknown): value is string {
  return typeof value === "string" && value.startsWith(sealedPrefix);
}

export function newSeal(): Uint8Array {
  return new Uint8Array(randomBytes(sealBytes));
}

// IVs are cut from a buffer of random bytes filled 4 KiB at a time: asking the system's random
// source for 12 bytes per sealed field (a memory has one per entity) cost as much as the
// encryption. Each IV is used once, before the buffer is filled again.
const ivPool = Buffer.alloc(4096);
let ivOffset = ivPool.length;

function freshIv(): Buffer {
  if (ivOffset + ivBytes > ivPool.length) {
    randomFillSync(ivPool);
    ivOffset = 0;
  }
  const iv = ivPool.subarray(ivOffset, ivOffset + ivBytes);
  ivOffset += ivBytes;
  return iv;
}

export function sealText(seal: Uint8Array, memoryId: string, plaintext: string): string {
  if (seal.length !== sealBytes) throw new SealedContentError(`a seal has ${sealBytes} bytes`);
  const iv = freshIv();
  const cipher = createCipheriv("aes-256-gcm", seal, iv);
  cipher.setAAD(Buffer.from(memoryId, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `${sealedPrefix}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
}

/** Opens a sealed value; plain text is returned as it is. Throws when seal or memory id do not fit. */
export function openSealedText(seal: Uint8Array, memoryId: string, value: string): string {
  if (!isSealed(value)) return value;
  const raw = Buffer.from(value.slice(sealedPrefix.length), "base64url");
  if (raw.length < ivBytes + tagBytes) throw new SealedContentError("a sealed value is truncated");
  try {
    const decipher = createDecipheriv("aes-256-gcm", seal, raw.subarray(0, ivBytes));
    decipher.setAAD(Buffer.from(memoryId, "utf8"));
    decipher.setAuthTag(raw.subarray(ivBytes, ivBytes + tagBytes));
    return Buffer.concat([decipher.update(raw.subarray(ivBytes + tagBytes)), decipher.final()]).toString(
      "utf8",
    );
  } catch (cause) {
    throw new SealedContentError(`a sealed value of memory ${memoryId} does not open with its seal`, {
      cause,
    });
  }
}

/** The sealable fields of a memory body or revision (all optional: a revision carries some). */
type SealableFields = {
  content?: string | undefined;
  title?: string | undefined;
  entities?: { text: string; type: string }[] | undefined;
};

/** Seals content, title and entity texts with the memory's seal (fields left out stay out). */
export function sealMemoryFields<T extends SealableFields>(data: T, seal: Uint8Array, memoryId: string): T {
  const out: T = { ...data };
  if (data.content !== undefined) out.content = sealText(seal, memoryId, data.content);
  if (data.title !== undefined) out.title = sealText(seal, memoryId, data.title);
  if (data.entities !== undefined) {
    out.entities = data.entities.map((e) => ({ ...e, text: sealText(seal, memoryId, e.text) }));
  }
  return out;
}

/**
 * Opens the sealed fields of a memory body or revision. With the seal destroyed (or missing)
 * the sealed fields become empty: content and title `""`, no entities. Plain fields stay.
 */
export function openMemoryFields<T extends SealableFields>(
  data: T,
  seal: SealState | undefined,
  memoryId: string,
): T {
  const usable = seal?.state === "active" ? seal.seal : undefined;
  const open = (value: string) => {
    if (!isSealed(value)) return value;
    return usable ? openSealedText(usable, memoryId, value) : "";
  };
  const out: T = { ...data };
  if (data.content !== undefined) out.content = open(data.content);
  if (data.title !== undefined) out.title = open(data.title);
  if (data.entities !== undefined) {
    out.entities = data.entities.flatMap((e) => {
      if (!isSealed(e.text)) return [e];
      return usable ? [{ ...e, text: openSealedText(usable, memoryId, e.text) }] : [];
    });
  }
  return out;
}

/** Event types whose data carries sealable memory fields. */
export const sealedEventTypes: ReadonlySet<string> = new Set([
  "memory.recorded",
  "memory.revised",
  "proposal.submitted",
  "proposal.revised",
  "handoff.opened",
  "handoff.updated",
]);

const memoryStreamPrefix = "memory-";

/** The memory whose seal seals an event's fields, or undefined for events without sealed text. */
export function sealedMemoryIdOf(event: Pick<StoredEvent, "streamId" | "type">): string | undefined {
  if (!sealedEventTypes.has(event.type) || !event.streamId.startsWith(memoryStreamPrefix)) return undefined;
  return event.streamId.slice(memoryStreamPrefix.length);
}

function hasSealedField(data: unknown): boolean {
  if (data === null || typeof data !== "object") return false;
  const d = data as SealableFields;
  return isSealed(d.content) || isSealed(d.title) || (d.entities ?? []).some((e) => isSealed(e?.text));
}

/**
 * The events with their sealed fields opened (seals fetched once for the whole batch). Events
 * without sealed text are returned as they are; a purged memory's fields come back empty.
 */
export async function openSealedEvents<E extends StoredEvent>(
  events: readonly E[],
  sealRing: SealRing,
): Promise<E[]> {
  const ids = new Set<string>();
  for (const e of events) {
    const id = sealedMemoryIdOf(e);
    if (id !== undefined && hasSealedField(e.data)) ids.add(id);
  }
  if (ids.size === 0) return [...events];
  const seals = await sealRing.sealsFor([...ids]);
  return events.map((e) => {
    const id = sealedMemoryIdOf(e);
    if (id === undefined || !hasSealedField(e.data)) return e;
    return { ...e, data: openMemoryFields(e.data as SealableFields, seals.get(id), id) };
  });
}

/**
 * A memory document folded from its sealed events, with its text opened. The fold keeps only
 * the last content, title and entities (a revision replaces them, a purge empties them), so
 * only the current text is opened, once, however many versions the memory had; earlier values
 * were never opened. A purged memory's document has nothing sealed, and no seal is asked for.
 * For a projection or a history, which show each version, `openSealedEvents`.
 */
export async function openFoldedDocument<D extends SealableFields & { id: string }>(
  doc: D,
  sealRing: SealRing,
): Promise<D> {
  if (!hasSealedField(doc)) return doc;
  const seals = await sealRing.sealsFor([doc.id]);
  return openMemoryFields(doc, seals.get(doc.id), doc.id);
}
