// Every read model of Cairn is a projection of the log run by the one projection runtime. Its
// name is `<service>.<read model>`; the service that owns it answers for it on the bus: its
// status (generation, checkpoint, lag, dead letters) and the retry of its dead letters.
import { z } from "zod";
import type { BackendServiceName } from "./subjects.ts";

export const projectionNames = [
  "search.lexical",
  "search.vector",
  "ranking.signals",
  "ranking.keys",
  "maintenance.view",
] as const;
export const ProjectionNameSchema = z.enum(projectionNames);
export type ProjectionName = z.infer<typeof ProjectionNameSchema>;

/** The service that runs each projection. */
export function projectionService(name: ProjectionName): BackendServiceName {
  return name.slice(0, name.indexOf(".")) as BackendServiceName;
}

/** Short names people type (`--projection lexical`). */
export const projectionShortNames: Record<string, ProjectionName> = {
  lexical: "search.lexical",
  vector: "search.vector",
  signals: "ranking.signals",
  keys: "ranking.keys",
  view: "maintenance.view",
};

/** A projection name as typed: its full name or its short one; undefined when it names none. */
export function resolveProjectionName(typed: string): ProjectionName | undefined {
  if ((projectionNames as readonly string[]).includes(typed)) return typed as ProjectionName;
  return projectionShortNames[typed];
}

export const ProjectionStatusSchema = z.object({
  name: ProjectionNameSchema,
  /** The generation serving reads (0 before the first one). */
  generation: z.number().int().nonnegative(),
  /** The last log position applied to it. */
  position: z.number().int().nonnegative(),
  /** The highest committed position of the log when the status was read. */
  logPosition: z.number().int().nonnegative(),
  /** How far behind the log it is, in positions (about events). */
  lag: z.number().int().nonnegative(),
  /** Dead letters not yet retried successfully, and when the last of them was recorded. */
  deadLetters: z.number().int().nonnegative(),
  lastDeadLetterAt: z.string().nullable(),
  /** A rebuild in progress, if any: its generation and how far it got. */
  rebuilding: z.object({ generation: z.number().int().positive(), position: z.number().int() }).nullable(),
  /** What the read model adds (e.g. the embedding model of the vector read model). */
  details: z.record(z.string(), z.unknown()).default({}),
  /**
   * The copy of the service that applies it (its instance name; copies share a service's
   * projections), null while no copy holds it, absent where the runtime does not share them.
   */
  appliedBy: z.string().nullable().optional(),
});
export type ProjectionStatus = z.infer<typeof ProjectionStatusSchema>;

export const ProjectionsStatusRequestSchema = z
  .object({ projections: z.array(ProjectionNameSchema).min(1).optional() })
  .strict();
export type ProjectionsStatusRequest = z.input<typeof ProjectionsStatusRequestSchema>;

export const ProjectionsStatusReplySchema = z.object({ projections: z.array(ProjectionStatusSchema) });
export type ProjectionsStatusReply = z.infer<typeof ProjectionsStatusReplySchema>;

export const DeadLetterSchema = z.object({
  id: z.number().int().positive(),
  projection: ProjectionNameSchema,
  generation: z.number().int().nonnegative(),
  position: z.number().int().nullable(),
  eventId: z.string().nullable(),
  eventType: z.string().nullable(),
  streamId: z.string().nullable(),
  tenant: z.string().nullable(),
  reason: z.string(),
  error: z.string(),
  attempts: z.number().int().nonnegative(),
  status: z.enum(["open", "resolved"]),
  retries: z.number().int().nonnegative(),
  recordedAt: z.string(),
  retriedAt: z.string().nullable(),
});
export type DeadLetterRecord = z.infer<typeof DeadLetterSchema>;

export const DeadLettersRequestSchema = z
  .object({
    projections: z.array(ProjectionNameSchema).min(1).optional(),
    status: z.enum(["open", "resolved"]).optional(),
    limit: z.number().int().min(1).max(1000).default(100),
  })
  .strict();
export type DeadLettersRequest = z.input<typeof DeadLettersRequestSchema>;
export const DeadLettersReplySchema = z.object({ deadLetters: z.array(DeadLetterSchema) });
export type DeadLettersReply = z.infer<typeof DeadLettersReplySchema>;

/** Retries open dead letters (all of the projections named, or the ids given). */
export const RetryDeadLettersRequestSchema = z
  .object({
    projections: z.array(ProjectionNameSchema).min(1).optional(),
    ids: z.array(z.number().int().positive()).min(1).max(1000).optional(),
  })
  .strict();
export type RetryDeadLettersRequest = z.input<typeof RetryDeadLettersRequestSchema>;
export const RetryDeadLettersReplySchema = z.object({
  retried: z.array(
    z.object({
      id: z.number().int(),
      projection: ProjectionNameSchema,
      outcome: z.enum(["resolved", "failed"]),
      error: z.string().nullable(),
    }),
  ),
});
export type RetryDeadLettersReply = z.infer<typeof RetryDeadLettersReplySchema>;
