// mem0's memories as `Memory.get_all()` (open source, Python and TypeScript) and the platform's
// `client.get_all()` / `POST /v3/memories/` return them: `{ "results": [...] }` (the platform
// adds `count`, `next`, `previous`), or a bare list as in mem0 1.0.
import { type Kind, KindSchema } from "@cairn/contracts";
import { z } from "zod";
import { cleanTimestamp, preview } from "./clean-text.ts";
import { type DraftItem, type ImportOptions, type ImportPlan, startImport } from "./import-plan.ts";
import { createSlotClaims, slotDomain } from "./slot-claims.ts";
import { slotFromText } from "./slot-name.ts";

const optionalText = z.string().nullish();

/** One memory of a mem0 export; fields mem0 adds later pass through and are not used. */
export const Mem0MemorySchema = z.looseObject({
  id: z.union([z.string().min(1), z.number()]).transform(String),
  memory: z.string(),
  hash: optionalText,
  metadata: z.record(z.string(), z.unknown()).nullish(),
  /** Platform only. */
  categories: z.array(z.string()).nullish(),
  created_at: z.unknown().optional(),
  updated_at: z.unknown().optional(),
  /** mem0's TypeScript SDK writes the times in camel case. */
  createdAt: z.unknown().optional(),
  updatedAt: z.unknown().optional(),
  user_id: optionalText,
  agent_id: optionalText,
  run_id: optionalText,
  app_id: optionalText,
  session_id: optionalText,
  actor_id: optionalText,
  role: optionalText,
  expiration_date: optionalText,
  /** Platform: the memory that replaced this one. */
  replaced_by: optionalText,
});
export type Mem0Memory = z.infer<typeof Mem0MemorySchema>;

/** `{ "results": [...] }` (with or without the platform's paging fields) or a bare list. */
export const Mem0ExportSchema = z.union([
  z.array(z.unknown()),
  z.looseObject({ results: z.array(z.unknown()) }).transform((o) => o.results),
]);
const notAnExport = 'not a mem0 export: expected { "results": [...] } or a list of memories';

function kindFrom(metadata: Record<string, unknown> | null | undefined): Kind {
  for (const name of ["kind", "type"]) {
    const value = metadata?.[name];
    const parsed = KindSchema.safeParse(typeof value === "string" ? value.trim().toLowerCase() : value);
    if (parsed.success) return parsed.data;
  }
  return "fact";
}

function categoriesOf(memory: Mem0Memory): string[] {
  if (memory.categories) return memory.categories;
  const fromMetadata = memory.metadata?.categories;
  return Array.isArray(fromMetadata) ? fromMetadata.filter((c): c is string => typeof c === "string") : [];
}

/**
 * One memory per mem0 memory: its text as content; the slot from its first category and first
 * words, with a short suffix from its id (so the same memory always gets the same slot); its
 * categories as tags; source `mem0:<id>`; agent from `agent_id`, else `user_id`; kind from
 * `metadata.kind` or `metadata.type` when that names a Cairn kind, else `fact` (mem0 stores
 * extracted facts); `created_at` as validFrom, `expiration_date` as invalidAt, `app_id` as the
 * project unless `options.project` is given. A memory another one `replaced_by` is superseded
 * by it.
 */
export function importMem0(input: string | unknown, options: ImportOptions = {}): ImportPlan {
  const run = startImport(options, "mem0");
  const list = run.readJson(input, Mem0ExportSchema, notAnExport);
  if (list === undefined) return run.nothing();
  const { name, problems } = run;

  const memories: Mem0Memory[] = [];
  const seen = new Set<string>();
  list.forEach((raw, index) => {
    const parsed = Mem0MemorySchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      problems.push({
        where: `${name}:results[${index}]`,
        message: `not a mem0 memory (${issue?.path.join(".") || "memory"}: ${issue?.message}); skipped`,
      });
      return;
    }
    if (seen.has(parsed.data.id)) {
      problems.push({
        where: `${name}:${parsed.data.id}`,
        message: `memory ${parsed.data.id} is listed twice; the second is skipped`,
      });
      return;
    }
    seen.add(parsed.data.id);
    memories.push(parsed.data);
  });

  const predecessorOf = new Map<string, string>();
  for (const m of memories)
    if (m.replaced_by && seen.has(m.replaced_by)) predecessorOf.set(m.replaced_by, m.id);

  const claims = createSlotClaims();
  const scope = options.scope ?? "team";
  const drafts: DraftItem[] = memories.map((m) => {
    const where = `${name}:${m.id}`;
    const report = run.reportAt(where);
    const categories = categoriesOf(m);
    const project = options.project !== undefined ? options.project : (m.app_id ?? null);
    const slot = claims.claim(
      slotFromText(categories[0] ?? null, m.memory, m.id),
      slotDomain("memory", scope, project),
      m.id,
      report,
    );
    const replaced = m.replaced_by ? seen.has(m.replaced_by) : false;
    if (m.replaced_by && !replaced)
      report(`replaced by ${preview(m.replaced_by)}, which is not in the export`);
    const predecessor = predecessorOf.get(m.id);
    const agent = m.agent_id || m.user_id || undefined;
    return {
      sourceRef: where,
      tier: "memory",
      memory: {
        slot,
        kind: kindFrom(m.metadata),
        content: m.memory,
        tags: categories,
        aliases: [],
        keys: [],
        scope,
        project,
        source: `mem0:${m.id}`,
        validFrom: cleanTimestamp(m.created_at ?? m.createdAt, "created_at", report),
      },
      links: [],
      invalidAt: cleanTimestamp(m.expiration_date, "expiration_date", report),
      originalId: m.id,
      ...(replaced ? { status: "superseded" as const } : {}),
      ...(agent ? { agent } : {}),
      ...(predecessor ? { successorOf: { originalId: predecessor, via: "supersede" as const } } : {}),
    };
  });
  return run.finish(drafts);
}
