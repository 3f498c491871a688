// `cairn.search.reproject`: repairs named documents of the read models from the log (what
// maintenance's repair job asks for after the doctor found a document missing or behind).
//
// Per projection, as of its checkpoint: the events of each stream after the version the read
// model holds (all of them for a missing document) go through the projection's own `apply`,
// with the checkpoint as both the expected and the next position. The compare-and-set on the
// checkpoint keeps this from interleaving with live projection (a moved checkpoint: try again),
// and live projection carries on from the repaired documents as if nothing had happened.
import {
  type MemoryDocument,
  type ProjectionName,
  projectionNames,
  type ReprojectReply,
  type ReprojectRequestSchema,
  type StoredEvent,
  streamIdFor,
} from "@cairn/contracts";
import type { EventStore } from "@cairn/event-store";
import type { z } from "zod";
import type { LexicalStore } from "../projections/lexical/lexical-store.ts";
import type { ProjectionTarget } from "../projections/projection-target.ts";
import type { VectorProjection } from "../projections/vector/vector-projection.ts";
import type { VectorStore } from "../projections/vector/vector-store.ts";

export type ReprojectSources = {
  log: Pick<EventStore, "readStreams">;
  lexical: { target: ProjectionTarget; store: LexicalStore };
  vector: { target: VectorProjection; store: VectorStore };
};

type ProjectionReply = ReprojectReply["projections"][number];

async function currentVersions(
  sources: ReprojectSources,
  name: ProjectionName,
  generation: number,
  ids: readonly string[],
): Promise<Map<string, MemoryDocument>> {
  if (name === "lexical") return sources.lexical.store.loadDocuments(generation, ids);
  const gen = await sources.vector.store.generation(generation);
  if (!gen) return new Map();
  const rows = await sources.vector.store.loadRows(gen, ids);
  return new Map([...rows].map(([id, row]) => [id, row.document]));
}

async function reprojectOne(
  sources: ReprojectSources,
  name: ProjectionName,
  ids: readonly string[],
): Promise<ProjectionReply> {
  const target = name === "lexical" ? sources.lexical.target : sources.vector.target;
  for (let attempt = 1; ; attempt += 1) {
    const generation = await target.liveGeneration();
    const position = await target.checkpoint(generation);
    const held = await currentVersions(sources, name, generation, ids);
    const streams = await sources.log.readStreams(ids.map((id) => streamIdFor("memory", id)));
    const events: StoredEvent[] = [];
    const reply: ProjectionReply = {
      name,
      generation,
      position,
      reprojected: [],
      unchanged: [],
      notInLog: [],
    };
    for (const id of ids) {
      const stream = (streams.get(streamIdFor("memory", id)) ?? []).filter((e) => e.position <= position);
      const version = stream.at(-1)?.version ?? 0;
      if (version === 0) {
        reply.notInLog.push(id);
        continue;
      }
      const from = held.get(id)?.version ?? 0;
      // Current, or ahead of the log (a document the log cannot explain: only a rebuild fixes it).
      if (from >= version) {
        reply.unchanged.push(id);
        continue;
      }
      events.push(...stream.filter((e) => e.version > from));
      reply.reprojected.push({ id, version });
    }
    if (events.length === 0) return reply;
    events.sort((a, b) => a.position - b.position);
    const { outcome } = await target.apply(generation, { kind: "live" }, position, events, position);
    if (outcome === "ok") return reply;
    if (attempt >= 20) throw new Error(`reprojecting ${name} kept finding its checkpoint moved (${outcome})`);
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
  }
}

export async function reprojectDocuments(
  sources: ReprojectSources,
  request: z.infer<typeof ReprojectRequestSchema>,
): Promise<ReprojectReply> {
  const names = request.projections ?? [...projectionNames];
  const ids = [...new Set(request.ids)];
  const projections: ProjectionReply[] = [];
  for (const name of names) projections.push(await reprojectOne(sources, name, ids));
  return { projections };
}
