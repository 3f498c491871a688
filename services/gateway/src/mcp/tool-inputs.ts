// Argument shapes shared by several tools. Tool arguments are snake_case; the commands they
// become use the contracts' camelCase.
import { IdSchema, KindSchema, limits, ScopeSchema, TimestampSchema } from "@cairn/contracts";
import { z } from "zod";
import { IdempotencyKeySchema } from "../retries.ts";

export const idArg = IdSchema.describe("the memory's id");
export const versionArg = z
  .number()
  .int()
  .positive()
  .describe("the version you read (memory_read returns it); refused if the memory changed since");
export const reasonArg = z.string().max(limits.reasonMaxChars).optional().describe("why, for the record");
export const tokenArg = z
  .string()
  .optional()
  .describe("leave out to get a plan and a token; call again with that token to carry the plan out");

/** Every write tool takes it (see register-write-tool.ts): a retry with it never writes twice. */
export const idempotencyKeyArg = IdempotencyKeySchema.optional().describe(
  "a unique string you choose (a UUID), the same when you retry this call after a timeout or an outage: " +
    "the retry then answers what the first call did instead of writing again; a new one for each new write",
);

/** A two-step write's `tokenArg` as the command takes it: without a token the call only plans. */
export function confirmationOf(token: string | undefined) {
  return token === undefined ? { dryRun: true } : { dryRun: false, token };
}

export const memoryFields = {
  slot: z
    .string()
    .min(1)
    .max(limits.slotMaxChars)
    .describe(
      "a stable name for what this is about, e.g. `deploy/staging-db-url`; one active memory per slot",
    ),
  content: z.string().min(1).describe("the complete, self-contained memory (Markdown)"),
  kind: KindSchema.optional().describe("what sort of memory this is (default note)"),
  title: z.string().max(limits.titleMaxChars).optional(),
  tags: z.array(z.string().max(limits.tagMaxChars)).max(limits.maxTags).optional(),
  aliases: z.array(z.string()).max(limits.maxAliases).optional().describe("other names for the same subject"),
  keys: z
    .array(z.string())
    .max(limits.maxKeys)
    .optional()
    .describe("concepts and names to reach it by association"),
  scope: ScopeSchema.optional().describe(
    "`team` (default) shares with your tenant, `agent` keeps it private",
  ),
  project: z.string().max(limits.projectMaxChars).optional(),
  source: z
    .string()
    .max(limits.sourceMaxChars)
    .optional()
    .describe("where it comes from (file, URL, conversation)"),
  valid_from: TimestampSchema.optional(),
  episode: z
    .object({
      id: z.string().min(1).max(limits.episodeMaxChars).describe("the conversation, thread or session"),
      order: z.number().int().min(0).optional().describe("its place there, e.g. the turn number"),
    })
    .optional()
    .describe(
      "what this was written in; memories of one episode keep that context (default: this MCP session)",
    ),
};

export const changeFields = {
  content: z.string().min(1).optional(),
  kind: KindSchema.optional(),
  title: z.string().max(limits.titleMaxChars).optional(),
  tags: z.array(z.string().max(limits.tagMaxChars)).max(limits.maxTags).optional(),
  aliases: z.array(z.string()).max(limits.maxAliases).optional(),
  keys: z.array(z.string()).max(limits.maxKeys).optional(),
  project: z.string().max(limits.projectMaxChars).nullable().optional(),
  source: z.string().max(limits.sourceMaxChars).nullable().optional(),
  valid_from: TimestampSchema.nullable().optional(),
};

type MemoryArgs = {
  slot: string;
  content: string;
  kind?: z.infer<typeof KindSchema> | undefined;
  title?: string | undefined;
  tags?: string[] | undefined;
  aliases?: string[] | undefined;
  keys?: string[] | undefined;
  scope?: z.infer<typeof ScopeSchema> | undefined;
  project?: string | undefined;
  source?: string | undefined;
  valid_from?: string | undefined;
  episode?: { id: string; order?: number | undefined } | undefined;
};

/** Tool arguments to the contracts' `MemoryInput`, leaving out what was not given. */
export function toMemoryInput(args: MemoryArgs, sessionEpisode?: string) {
  const episode = args.episode
    ? { id: args.episode.id, order: args.episode.order ?? null }
    : sessionEpisode
      ? { id: sessionEpisode, order: null }
      : undefined;
  return {
    slot: args.slot,
    content: args.content,
    ...(args.kind === undefined ? {} : { kind: args.kind }),
    ...(args.title === undefined ? {} : { title: args.title }),
    ...(args.tags === undefined ? {} : { tags: args.tags }),
    ...(args.aliases === undefined ? {} : { aliases: args.aliases }),
    ...(args.keys === undefined ? {} : { keys: args.keys }),
    ...(args.scope === undefined ? {} : { scope: args.scope }),
    ...(args.project === undefined ? {} : { project: args.project }),
    ...(args.source === undefined ? {} : { source: args.source }),
    ...(args.valid_from === undefined ? {} : { validFrom: args.valid_from }),
    ...(episode === undefined ? {} : { episode }),
  };
}

type ChangeArgs = { [K in keyof typeof changeFields]?: z.infer<(typeof changeFields)[K]> };

export function toChanges(args: ChangeArgs) {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || !(key in changeFields)) continue;
    changes[key === "valid_from" ? "validFrom" : key] = value;
  }
  return changes;
}

/** Arguments of a change to one memory, proposal or handoff at the version read. */
export const changeArgs = { id: idArg, version: versionArg, ...changeFields };

type ChangeCommandArgs = ChangeArgs & { id: string; version: number };

/** `changeArgs` as the command takes them: the changes under `changes`, the version as expected. */
export function toChangeCommand({ id, version, ...rest }: ChangeCommandArgs) {
  return { id, expectedVersion: version, changes: toChanges(rest) };
}
