// The knowledge graph of the MCP reference server `@modelcontextprotocol/server-memory`: its
// `memory.jsonl` has one JSON object a line, `{"type":"entity","name","entityType","observations"}`
// or `{"type":"relation","from","to","relationType"}`. Its `read_graph` tool answers the same
// graph as one object, `{ "entities": [...], "relations": [...] }`, which is read too.
import { type Kind, KindSchema } from "@cairn/contracts";
import { z } from "zod";
import { preview } from "./clean-text.ts";
import {
  type DraftItem,
  type ImportOptions,
  type ImportPlan,
  type ImportProblem,
  startImport,
} from "./import-plan.ts";
import { createSlotClaims, slotDomain } from "./slot-claims.ts";
import { cutToLength } from "./slot-name.ts";
import { wikiLabel } from "./wiki-links.ts";

export const ServerMemoryEntitySchema = z.object({
  name: z.string().min(1),
  entityType: z.string().default(""),
  observations: z.array(z.unknown()).default([]),
});
export const ServerMemoryRelationSchema = z.object({
  from: z.string().min(1),
  to: z.string().min(1),
  relationType: z.string().min(1),
});
export const ServerMemoryGraphSchema = z.object({
  entities: z.array(z.unknown()).default([]),
  relations: z.array(z.unknown()).default([]),
});

type Entity = { name: string; entityType: string; observations: string[]; where: string };
type Relation = { from: string; to: string; relationType: string; where: string };
type Line = { value: unknown; where: string; type: "entity" | "relation" | undefined };

function isGraph(value: unknown): value is object {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !("type" in value) &&
    ("entities" in value || "relations" in value)
  );
}

function readLines(text: string, name: string, problems: ImportProblem[]): Line[] {
  let whole: unknown;
  try {
    whole = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    whole = undefined; // not one JSON value: JSON Lines, read below
  }
  if (isGraph(whole)) {
    const graph = ServerMemoryGraphSchema.safeParse(whole);
    if (!graph.success) {
      problems.push({ where: name, message: "entities and relations must be lists; nothing read" });
      return [];
    }
    return [
      ...graph.data.entities.map((e, i) => ({
        value: e,
        where: `${name}:entities[${i}]`,
        type: "entity" as const,
      })),
      ...graph.data.relations.map((r, i) => ({
        value: r,
        where: `${name}:relations[${i}]`,
        type: "relation" as const,
      })),
    ];
  }
  const out: Line[] = [];
  text
    .replace(/^\uFEFF/, "")
    .split("\n")
    .forEach((raw, i) => {
      const line = raw.replace(/\r$/, "");
      if (line.trim().length === 0) return;
      const where = `${name}:${i + 1}`;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        problems.push({ where, message: `not JSON (${(error as Error).message}); skipped` });
        return;
      }
      const type =
        typeof value === "object" && value !== null ? (value as { type?: unknown }).type : undefined;
      if (type !== "entity" && type !== "relation") {
        problems.push({
          where,
          message: `type ${preview(String(type))} is neither entity nor relation; skipped`,
        });
        return;
      }
      out.push({ value, where, type });
    });
  return out;
}

function kindOf(entityType: string): Kind {
  const parsed = KindSchema.safeParse(entityType.trim().toLowerCase());
  return parsed.success ? parsed.data : "fact";
}

/**
 * One memory per entity, slot from its name. Its content names the entity and its type, then
 * lists its observations, one a line, then its relations, one a line written
 * `<from> <relationType> [[<slot of to>|<to>]]`: ingest derives a memory's links from the
 * `[[slot]]`s in its content, so writing the relation there is what makes it a link, and the
 * line keeps the relation's type, which a bare link would lose. A relation is written in the
 * memory of the entity it starts from (relations are directed). Keys are the entity's name and
 * type; kind is the entity type when that names a Cairn kind, else `fact`.
 * An entity named twice is read as one (observations merged); repeated observations and
 * relations are written once. Two names that give the same slot are kept apart by a suffix.
 */
export function importServerMemory(text: string, options: ImportOptions = {}): ImportPlan {
  const run = startImport(options, "memory.jsonl");
  const { name, problems } = run;
  const entities = new Map<string, Entity>();
  const relations: Relation[] = [];
  const relationKeys = new Set<string>();

  for (const line of readLines(text, name, problems)) {
    const report = run.reportAt(line.where);
    if (line.type === "entity") {
      const parsed = ServerMemoryEntitySchema.safeParse(line.value);
      if (!parsed.success) {
        report(
          `not an entity (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}); skipped`,
        );
        continue;
      }
      const observations: string[] = [];
      for (const o of parsed.data.observations) {
        if (typeof o === "string") observations.push(o);
        else report(`observation ${preview(JSON.stringify(o) ?? String(o))} is not text; skipped`);
      }
      const existing = entities.get(parsed.data.name);
      const entity = existing ?? {
        name: parsed.data.name,
        entityType: parsed.data.entityType,
        observations: [],
        where: line.where,
      };
      if (existing) {
        report(`entity ${preview(parsed.data.name)} is already on ${existing.where}; observations merged`);
        if (parsed.data.entityType && parsed.data.entityType !== existing.entityType) {
          report(
            `entity type ${preview(parsed.data.entityType)} differs from ${preview(existing.entityType)}; the first kept`,
          );
        }
      }
      let repeated = 0;
      for (const o of observations) {
        if (entity.observations.includes(o)) repeated++;
        else entity.observations.push(o);
      }
      if (repeated > 0) report(`${repeated} repeated observation${repeated === 1 ? "" : "s"} written once`);
      entities.set(entity.name, entity);
    } else {
      const parsed = ServerMemoryRelationSchema.safeParse(line.value);
      if (!parsed.success) {
        report(
          `not a relation (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}); skipped`,
        );
        continue;
      }
      const key = JSON.stringify([parsed.data.from, parsed.data.relationType, parsed.data.to]);
      if (relationKeys.has(key)) {
        report("repeated relation written once");
        continue;
      }
      relationKeys.add(key);
      relations.push({ ...parsed.data, where: line.where });
    }
  }

  const claims = createSlotClaims();
  const scope = options.scope ?? "team";
  const project = options.project ?? null;
  const slotOf = new Map<string, string>();
  for (const entity of entities.values()) {
    const report = run.reportAt(entity.where);
    slotOf.set(
      entity.name,
      claims.claim(entity.name, slotDomain("memory", scope, project), entity.name, report),
    );
  }

  const outgoing = new Map<string, Relation[]>();
  for (const relation of relations) {
    if (!entities.has(relation.from)) {
      problems.push({
        where: relation.where,
        message: `relation from ${preview(relation.from)}, which is not an entity of the file; skipped`,
      });
      continue;
    }
    if (!entities.has(relation.to)) {
      problems.push({
        where: relation.where,
        message: `relation to ${preview(relation.to)}, which is not an entity of the file`,
      });
    }
    outgoing.set(relation.from, [...(outgoing.get(relation.from) ?? []), relation]);
  }

  const drafts: DraftItem[] = [...entities.values()].map((entity) => {
    const links: string[] = [];
    const lines = [entity.entityType ? `${entity.name} (${entity.entityType})` : entity.name];
    for (const o of entity.observations) lines.push(`- ${o.replace(/\n/g, "\n  ")}`);
    for (const r of outgoing.get(entity.name) ?? []) {
      const target = slotOf.get(r.to) ?? claims.peek(r.to);
      const shown = cutToLength(wikiLabel(r.to), 200);
      links.push(target);
      lines.push(
        `- ${r.from} ${r.relationType} [[${target}${shown && shown !== target ? `|${shown}` : ""}]]`,
      );
    }
    return {
      sourceRef: entity.where,
      tier: "memory",
      memory: {
        slot: slotOf.get(entity.name)!,
        kind: kindOf(entity.entityType),
        content: lines.join("\n"),
        title: entity.name,
        tags: [],
        aliases: [],
        keys: [entity.name, entity.entityType],
        scope,
        project,
        source: `server-memory:${entity.name}`,
        validFrom: null,
      },
      links,
      originalId: entity.name,
    };
  });
  return run.finish(drafts);
}
