// keymem's store, `~/.keymem/graph.json` (or `$KEYMEM_DATA_DIR/graph.json`): concept keys and
// memories by id, and the weighted key → memory links between them. keymem has no export
// command; this file is what it keeps, and what is read here. Embeddings (empty in the file
// since vectors moved to a sidecar), depth, access counts and link weights are ranking state of
// keymem's own and are not carried over; weights only order a memory's keys.

import { limits } from "@cairn/contracts";
import { z } from "zod";
import { cleanTimestamp, preview } from "./clean-text.ts";
import { type DraftItem, type ImportOptions, type ImportPlan, startImport } from "./import-plan.ts";
import { createSlotClaims, slotDomain } from "./slot-claims.ts";
import { slotFromText } from "./slot-name.ts";

const ids = z
  .array(z.unknown())
  .default([])
  .transform((a) => a.filter((v): v is string => typeof v === "string"));

export const KeymemKeySchema = z.looseObject({
  id: z.string().optional(),
  concept: z.string().min(1),
  aliases: ids,
  key_type: z.string().optional(),
});

export const KeymemMemorySchema = z.looseObject({
  id: z.string().optional(),
  content: z.string(),
  /** Seconds since 1970 (fractional). */
  created_at: z.number().optional(),
  source: z.record(z.string(), z.unknown()).nullish(),
  supersedes: z.string().nullish(),
  namespace: z.string().optional(),
  /** When it expires, in seconds since 1970, or null. */
  ttl: z.number().nullish(),
  /** Memories it is explicitly related to (`related_to`). */
  links: ids,
  contradicts: ids,
});

export const KeymemLinkSchema = z.looseObject({
  key_id: z.string(),
  memory_id: z.string(),
  weight: z.number().optional(),
});

/**
 * `graph.json`: keys and memories by id, key → memory links as a list. Entries are checked one
 * by one (`KeymemKeySchema`, `KeymemMemorySchema`, `KeymemLinkSchema`), so one bad entry does not
 * stop the rest.
 */
export const KeymemGraphSchema = z.looseObject({
  keys: z.record(z.string(), z.unknown()).default({}),
  memories: z.record(z.string(), z.unknown()),
  links: z.array(z.unknown()).default([]),
});
export type KeymemGraph = z.input<typeof KeymemGraphSchema>;
const notAGraph = 'not a keymem graph: expected { "keys": {...}, "memories": {...}, "links": [...] }';

type Memory = z.infer<typeof KeymemMemorySchema> & { id: string };

const defaultNamespace = "default";

/**
 * One memory per keymem memory, content as written. Its keys are the concepts linked to it
 * (strongest link first), then those keys' aliases while there is room, so that every form
 * keymem recalled it by (a concept in two languages, say) still finds it. keymem memories have
 * no names: the slot is made from the first concept and the first words, with a suffix from the
 * id. `namespace` is the project (`default` means none), `created_at` validFrom, `ttl`
 * invalidAt, `source.host_agent` the agent. A memory another one `supersedes` is superseded by
 * it. Explicit links (`related_to`) and detected contradictions are written as lines
 * `Related: [[slot]]` and `Contradicts: [[slot]]` at the end of the content, because ingest
 * derives a memory's links from its content.
 */
export function importKeymem(input: string | unknown, options: ImportOptions = {}): ImportPlan {
  const run = startImport(options, "graph.json");
  const graph = run.readJson(input, KeymemGraphSchema, notAGraph);
  if (graph === undefined) return run.nothing();
  const { name, problems } = run;

  const keys = new Map<string, z.infer<typeof KeymemKeySchema>>();
  for (const [id, raw] of Object.entries(graph.keys)) {
    const key = KeymemKeySchema.safeParse(raw);
    if (key.success) keys.set(id, key.data);
    else problems.push({ where: `${name}:keys.${id}`, message: "a key without a concept; skipped" });
  }
  const memories: Memory[] = [];
  for (const [id, raw] of Object.entries(graph.memories)) {
    const memory = KeymemMemorySchema.safeParse(raw);
    if (memory.success) memories.push({ ...memory.data, id });
    else problems.push({ where: `${name}:${id}`, message: "a memory without content; skipped" });
  }
  // Oldest first, as keymem wrote them: a memory comes after the one it supersedes.
  memories.sort(
    (a, b) => (a.created_at ?? 0) - (b.created_at ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const byId = new Map(memories.map((m) => [m.id, m]));

  const keysOf = new Map<string, { concept: string; aliases: string[]; weight: number }[]>();
  graph.links.forEach((raw, i) => {
    const link = KeymemLinkSchema.safeParse(raw);
    const key = link.success ? keys.get(link.data.key_id) : undefined;
    if (!link.success || key === undefined || !byId.has(link.data.memory_id)) {
      problems.push({
        where: `${name}:links[${i}]`,
        message: "a link between a key and a memory that are not both in the file; skipped",
      });
      return;
    }
    const list = keysOf.get(link.data.memory_id) ?? [];
    list.push({ concept: key.concept, aliases: key.aliases, weight: link.data.weight ?? 0 });
    keysOf.set(link.data.memory_id, list);
  });

  const superseded = new Set<string>();
  for (const m of memories) if (m.supersedes && byId.has(m.supersedes)) superseded.add(m.supersedes);

  const claims = createSlotClaims();
  const scope = options.scope ?? "team";
  const slots = new Map<string, string>();
  const keyLabels = new Map<string, string[]>();
  for (const m of memories) {
    const report = run.reportAt(`${name}:${m.id}`);
    const linked = (keysOf.get(m.id) ?? []).sort(
      (a, b) => b.weight - a.weight || (a.concept < b.concept ? -1 : 1),
    );
    const concepts = [...new Set(linked.map((k) => k.concept))];
    const labels = [...concepts];
    const seen = new Set(concepts.map((c) => c.toLowerCase()));
    for (const alias of linked.flatMap((k) => k.aliases)) {
      if (labels.length >= limits.maxKeys) break;
      if (seen.has(alias.toLowerCase())) continue;
      seen.add(alias.toLowerCase());
      labels.push(alias);
    }
    keyLabels.set(m.id, labels);
    const project = projectOf(m, options);
    slots.set(
      m.id,
      claims.claim(
        slotFromText(concepts[0] ?? null, m.content, m.id),
        slotDomain("memory", scope, project),
        m.id,
        report,
      ),
    );
  }

  const drafts: DraftItem[] = memories.map((m) => {
    const where = `${name}:${m.id}`;
    const report = run.reportAt(where);
    const linkLine = (label: string, targets: string[]): { line: string; slots: string[] } | undefined => {
      const found: string[] = [];
      for (const id of targets) {
        const slot = slots.get(id);
        if (slot === undefined) report(`${label.toLowerCase()} memory ${preview(id)} is not in the file`);
        else if (id !== m.id && !found.includes(slot)) found.push(slot);
      }
      return found.length > 0
        ? { line: `${label}: ${found.map((s) => `[[${s}]]`).join(" ")}`, slots: found }
        : undefined;
    };
    const related = [linkLine("Related", m.links), linkLine("Contradicts", m.contradicts)].filter(
      (l) => l !== undefined,
    );
    const content =
      related.length > 0 ? `${m.content.trimEnd()}\n\n${related.map((r) => r.line).join("\n")}` : m.content;
    const hostAgent = m.source?.host_agent;
    const project = projectOf(m, options);
    return {
      sourceRef: where,
      tier: "memory",
      memory: {
        slot: slots.get(m.id)!,
        kind: "fact",
        content,
        tags: [],
        aliases: [],
        keys: keyLabels.get(m.id) ?? [],
        scope,
        project,
        source: `keymem:${m.id}`,
        validFrom: cleanTimestamp(m.created_at, "created_at", report),
      },
      links: related.flatMap((r) => r.slots),
      invalidAt: m.ttl == null ? null : cleanTimestamp(m.ttl, "ttl", report),
      originalId: m.id,
      ...(superseded.has(m.id) ? { status: "superseded" as const } : {}),
      ...(typeof hostAgent === "string" && hostAgent ? { agent: hostAgent } : {}),
      ...(m.supersedes && byId.has(m.supersedes)
        ? { successorOf: { originalId: m.supersedes, via: "supersede" as const } }
        : {}),
    };
  });
  return run.finish(drafts);
}

function projectOf(m: Memory, options: ImportOptions): string | null {
  if (options.project !== undefined) return options.project;
  return m.namespace && m.namespace !== defaultNamespace ? m.namespace : null;
}
