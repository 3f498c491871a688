// The event log as a timeline, for admins: their tenant's events, or one stream's, newest
// first — who, when, what. The log holds memory text sealed; this route never returns it.
// The text of a version comes from the search service's history read, which opens the seal
// and applies the visibility rule, so an event shows text only when the admin may see that
// memory. An event about a memory the admin may not see (another agent's private memory,
// for an admin who is not the primary agent) keeps its who, when and what, and loses its
// stream, its data and its text. Recall queries are never shown.
import {
  CairnError,
  type DecodedEvent,
  type DecodedEventOf,
  decodeStoredEvent,
  type EventType,
  type HistoryReply,
  IdSchema,
  isCairnError,
  type StoredEvent,
  StreamTypeSchema,
  sealedEventTypes,
  TimestampSchema,
} from "@cairn/contracts";
import { readTimeline } from "@cairn/event-store";
import { memoryIdOfStream } from "@cairn/memory-model";
import type pg from "pg";
import { z } from "zod";
import { requireAdmin } from "../../auth/role-checks.ts";
import type { Caller } from "../../operations/caller.ts";
import type { Operations } from "../../operations/create-operations.ts";
import { defineRoute, type RouteSpec } from "../route-spec.ts";

const TimelineEventSchema = z.object({
  position: z.number().int().positive(),
  at: TimestampSchema,
  /** The agent (or service) the event was written for. */
  actor: z.string(),
  type: z.string(),
  /** Null for an event about a memory the caller may not see (stream ids name memories). */
  streamId: z.string().nullable(),
  streamType: StreamTypeSchema,
  version: z.number().int().positive(),
  correlationId: z.string(),
  /** The memories the event is about (its own stream's, a linked, rated or recalled one). */
  memoryIds: z.array(IdSchema),
  /** Whether the caller may see every memory the event is about; if not, no data and no text. */
  visible: z.boolean(),
  /** The event's data without its text fields (content, title, entities) and recall queries. */
  data: z.record(z.string(), z.unknown()).nullable(),
  /** The title and content of the version this event made (null when purged). */
  text: z.object({ title: z.string().nullable(), content: z.string().nullable() }).nullable(),
});

const TimelineSchema = z.object({
  events: z.array(TimelineEventSchema),
  /** Pass as `before` for the next (older) page; null on the last one. */
  next: z.number().int().positive().nullable(),
});

type TimelineEvent = z.infer<typeof TimelineEventSchema>;

/** Fields never returned: the sealed text (given as `text` when visible) and what a recall asked. */
const withheldFields = new Set(["content", "title", "entities", "query", "terms"]);

const ownMemory = (event: StoredEvent): string[] => {
  const id = memoryIdOfStream(event.streamId);
  return id === undefined ? [] : [id];
};
const noMemory = (): string[] => [];

/** The memories each event type is about; the compiler checks every type has an entry. */
const memoriesOf: { [T in EventType]: (event: DecodedEventOf<T>) => readonly string[] } = {
  "memory.recorded": ownMemory,
  "memory.revised": ownMemory,
  "memory.superseded": ownMemory,
  "memory.archived": ownMemory,
  "memory.deleted": ownMemory,
  "memory.restored": ownMemory,
  "memory.invalidated": ownMemory,
  "memory.verified": ownMemory,
  "memory.purged": ownMemory,
  "proposal.submitted": ownMemory,
  "proposal.revised": ownMemory,
  "proposal.promoted": ownMemory,
  "proposal.rejected": ownMemory,
  "handoff.opened": ownMemory,
  "handoff.updated": ownMemory,
  "handoff.completed": ownMemory,
  "key.linked": (event) => [event.data.memoryId],
  "key.merged": noMemory,
  "feedback.given": (event) => [event.data.memoryId],
  "memories.recalled": (event) => event.data.memoryIds,
  "tenant.settings_changed": noMemory,
  "maintenance.run_recorded": noMemory,
};

function decoded(event: StoredEvent): DecodedEvent | undefined {
  try {
    return decodeStoredEvent(event);
  } catch {
    return undefined;
  }
}

function memoryIdsOf(event: StoredEvent): string[] {
  const typed = decoded(event);
  // An event this gateway cannot read (a newer type) is at least about its own memory.
  if (typed === undefined) return ownMemory(event);
  const about = memoriesOf[typed.type] as (event: DecodedEvent) => readonly string[];
  return [...new Set(about(typed))];
}

function openData(data: unknown): Record<string, unknown> | null {
  if (typeof data !== "object" || data === null) return null;
  return Object.fromEntries(Object.entries(data).filter(([field]) => !withheldFields.has(field)));
}

/** How many history reads run at once for one page. */
const historyReadsAtOnce = 8;

/** Each memory's history as the caller may read it; null for a memory it may not see. */
async function historiesFor(
  ops: Operations,
  caller: Caller,
  memoryIds: readonly string[],
): Promise<Map<string, HistoryReply | null>> {
  const out = new Map<string, HistoryReply | null>();
  for (let i = 0; i < memoryIds.length; i += historyReadsAtOnce) {
    await Promise.all(
      memoryIds.slice(i, i + historyReadsAtOnce).map(async (id) => {
        try {
          out.set(id, await ops.history(caller, id));
        } catch (error) {
          if (isCairnError(error) && (error.code === "not_found" || error.code === "forbidden")) {
            out.set(id, null);
          } else {
            throw error;
          }
        }
      }),
    );
  }
  return out;
}

function toTimelineEvent(
  { event, memoryIds }: { event: StoredEvent; memoryIds: string[] },
  histories: Map<string, HistoryReply | null>,
): TimelineEvent {
  const visible = memoryIds.every((id) => histories.get(id));
  const own = memoryIdOfStream(event.streamId);
  const version =
    visible && own !== undefined && sealedEventTypes.has(event.type)
      ? histories.get(own)?.versions.find((v) => v.position === event.position)
      : undefined;
  return {
    position: event.position,
    at: event.meta.recordedAt,
    actor: event.meta.actor,
    type: event.type,
    // A memory's activity stream is named after it too: no stream of what may not be seen.
    streamId: visible ? event.streamId : null,
    streamType: event.streamType,
    version: event.version,
    correlationId: event.meta.correlationId,
    memoryIds: visible ? memoryIds : [],
    visible,
    data: visible ? openData(event.data) : null,
    text: version ? { title: version.title, content: version.content } : null,
  };
}

export function eventRoutes(ops: Operations, pool: pg.Pool): RouteSpec[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/events",
      operationId: "listEvents",
      summary: "Admins: their tenant's events (or one stream's), newest first, with text they may see",
      description:
        "Each event says who (`actor`), when (`at`) and what (`type`, `data` without text fields). " +
        "`text` is the version's title and content, read through the visibility rule: an event of a " +
        "memory the key may not see has no stream, data or text. Page with `before=<next>`.",
      tag: "events",
      query: z
        .object({
          stream: z
            .string()
            .min(1)
            .max(200)
            .optional()
            .describe("one stream only, e.g. `memory-<id>` or `tenant-<tenant>`"),
          before: z.coerce.number().int().positive().optional().describe("only events below this position"),
          limit: z.coerce.number().int().min(1).max(100).optional(),
        })
        .strict(),
      success: { status: 200, description: "Events, newest first", schema: TimelineSchema },
      errors: [403],
      handler: async ({ caller, query }) => {
        requireAdmin(caller.principal, "read the event log");
        const limit = query.limit ?? 50;
        const rows = await readTimeline(pool, {
          tenant: caller.principal.tenant,
          stream: query.stream,
          before: query.before,
          limit,
        }).catch((cause: unknown) => {
          throw new CairnError("unavailable", "the event log could not be read", {
            hint: "retry shortly",
            cause,
          });
        });
        const page = rows.slice(0, limit).map((event) => ({ event, memoryIds: memoryIdsOf(event) }));
        const histories = await historiesFor(ops, caller, [...new Set(page.flatMap((e) => e.memoryIds))]);
        return {
          events: page.map((entry) => toTimelineEvent(entry, histories)),
          next: rows.length > limit ? (page.at(-1)?.event.position ?? null) : null,
        };
      },
    }),
  ];
}
