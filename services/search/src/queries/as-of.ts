// Reads as of a past point (a log position, or a time: the last event committed by then),
// folded from the log, the only truth:
//
// - a memory by id: exactly the document it was (not found if it did not exist yet);
// - a listing (query `*`): exactly the memories that existed then and passed the filters then,
//   newest first;
// - a search with a query: the candidates are found by today's indexes (all statuses), then
//   each is folded as of the point and kept when it existed and passed the filters then. Words
//   a memory had then but no longer has do not find it, and scores are today's.
import {
  type AsOf,
  CairnError,
  type CandidatesReply,
  listAllQuery,
  type MemoryDocument,
  type ParsedCandidatesRequest,
  statuses,
} from "@cairn/contracts";
import { memoryStreamId } from "@cairn/memory-model";
import { foldFromLog, type LogSources } from "./fold-from-log.ts";
import { type ReadModels, waitForLexical } from "./read-models.ts";
import { rankCandidates } from "./search-candidates.ts";
import { matchesFilters } from "./search-filters.ts";

/** The log position an `asOf` stands for, never beyond what the log can show now. */
export async function resolveAsOf(sources: LogSources, asOf: AsOf): Promise<number> {
  const last = await sources.log.lastPosition();
  if (typeof asOf === "number") {
    if (asOf > last) {
      throw new CairnError("validation_failed", `asOf ${asOf} is beyond the end of the log (${last})`, {
        hint: "give a position the log has reached, or a time",
        details: { field: "asOf", logPosition: last },
      });
    }
    return asOf;
  }
  return Math.min(last, await sources.log.positionAt(asOf));
}

/** The time an `asOf` stands for, for what depends on the clock (expiry). */
function timeOf(asOf: AsOf, fallback: number): number {
  return typeof asOf === "string" ? Date.parse(asOf) : fallback;
}

/** One memory as it was at `position` (null if it did not exist then). */
export async function documentAsOf(
  sources: LogSources,
  id: string,
  position: number,
): Promise<MemoryDocument | null> {
  const stream = (await sources.log.readStream(memoryStreamId(id))).filter((e) => e.position <= position);
  return (await foldFromLog(sources, stream)).get(id) ?? null;
}

export function isAsOfRequest(
  request: ParsedCandidatesRequest,
): request is ParsedCandidatesRequest & { asOf: AsOf } {
  return request.asOf !== undefined;
}

export async function asOfCandidates(
  models: ReadModels,
  sources: LogSources,
  request: ParsedCandidatesRequest & { asOf: AsOf },
): Promise<CandidatesReply> {
  const position = await resolveAsOf(sources, request.asOf);
  const at = timeOf(request.asOf, models.now());
  const keep = (doc: MemoryDocument | undefined | null): doc is MemoryDocument =>
    doc !== undefined && doc !== null && matchesFilters(doc, request.principal, request.filters, at);
  if (request.query.trim() === listAllQuery) {
    const documents = await foldFromLog(
      sources,
      await sources.log.readTenantMemories(request.principal.tenant, position),
    );
    const listed = [...documents.values()]
      .filter(keep)
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id))
      .slice(0, request.candidateK);
    return {
      candidates: listed.map((document, i) => ({
        id: document.id,
        document,
        lexical: null,
        vector: null,
        fused: 1 / (60 + i + 1),
      })),
      position,
      positions: {},
      embeddingModel: null,
      synonymsApplied: [],
      unavailable: [],
    };
  }
  // Today's indexes find the candidates in every status; the log says what each was then.
  await waitForLexical(models, request);
  const { documents: _listed, ...today } = await rankCandidates(models, {
    ...request,
    filters: { ...request.filters, status: [...statuses], includeExpired: true },
    candidateK: Math.min(500, request.candidateK * 3),
  });
  const ids = today.candidates.map((c) => c.id);
  const streams = await sources.log.readStreams(ids.map(memoryStreamId));
  const events = [...streams.values()].flat().filter((e) => e.position <= position);
  const then = await foldFromLog(sources, events);
  const candidates = today.candidates
    .flatMap((c) => {
      const document = then.get(c.id);
      return keep(document) ? [{ ...c, document }] : [];
    })
    .slice(0, request.candidateK);
  return { ...today, candidates, position };
}
