// `cairn.search.get`: one current document by id, or the active one holding a slot, with
// the memories it links to and those linking to it, all limited to what the principal sees.

import type { GetMemoryRequestSchema } from "@cairn/contracts";
import {
  type AsOf,
  CairnError,
  type GetMemoryReply,
  type LinkRef,
  type MemoryDocument,
  type Principal,
  type Tier,
} from "@cairn/contracts";
import { canSee } from "@cairn/memory-model";
import type { z } from "zod";
import { episodeOrder } from "../projections/lexical/lexical-index.ts";
import { tagClause } from "../projections/lexical/query-syntax.ts";
import { documentAsOf, resolveAsOf } from "./as-of.ts";
import { foldFromLog, type LogSources } from "./fold-from-log.ts";
import { type ReadModels, waitForLexical } from "./read-models.ts";
import { onActiveGeneration, readModelError } from "./store-errors.ts";
import { defaultStatuses, lexicalReach, lexicalVisibility } from "./visibility.ts";

export type ParsedGetMemoryRequest = z.infer<typeof GetMemoryRequestSchema>;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const maxBacklinks = 100;

function notFound(what: string): CairnError {
  return new CairnError("not_found", `no memory ${what} that you can see`, {
    hint: "check the id or slot; recall by query if you do not know it",
  });
}

/** Own agent-scoped slot first, then the team's, then a global one; newest on a tie. */
function preferred(principal: Principal, docs: MemoryDocument[]): MemoryDocument | undefined {
  const rank = (d: MemoryDocument) =>
    d.scope === "agent" ? (d.agent === principal.agent ? 0 : 1) : d.scope === "team" ? 2 : 3;
  return [...docs].sort((a, b) => rank(a) - rank(b) || b.updatedAt.localeCompare(a.updatedAt))[0];
}

async function bySlot(
  models: ReadModels,
  g: number,
  principal: Principal,
  slot: string,
  tier: Tier,
): Promise<MemoryDocument | undefined> {
  const slotClause = tagClause("slot_tag", [slot]);
  if (slotClause === null) return undefined;
  const query = [slotClause, lexicalReach(principal, tier, defaultStatuses({ tier }))].join(" ");
  const docs = (await models.lexical.searchDocuments(g, query, 50)).filter((d) => canSee(d, principal));
  // The tag matched case-insensitively; an exact spelling wins.
  const exact = docs.filter((d) => d.slot === slot);
  return preferred(principal, exact.length > 0 ? exact : docs);
}

function toRef(doc: MemoryDocument): LinkRef {
  return { id: doc.id, slot: doc.slot, title: doc.title, tier: doc.tier, status: doc.status };
}

export async function getMemory(
  models: ReadModels,
  sources: LogSources,
  request: ParsedGetMemoryRequest,
): Promise<GetMemoryReply> {
  if (request.asOf !== undefined) return readAsOf(models, sources, request, request.asOf);
  const position = await waitForLexical(models, request);
  try {
    return await onActiveGeneration(() => readOnce(models, request, position));
  } catch (error) {
    throw readModelError("lexical", error);
  }
}

async function readOnce(
  models: ReadModels,
  request: ParsedGetMemoryRequest,
  position: number,
): Promise<GetMemoryReply> {
  const { principal } = request;
  const g = await models.lexical.activeGeneration();
  if (g === null) throw notFound(request.id ? `with id ${request.id}` : `in slot ${request.slot}`);
  let document: MemoryDocument | undefined;
  if (request.id !== undefined) {
    const doc = await models.lexical.loadDocument(g, request.id);
    if (doc && canSee(doc, principal) && (request.tier === undefined || doc.tier === request.tier))
      document = doc;
    if (!document) throw notFound(`with id ${request.id}`);
  } else {
    document = await bySlot(models, g, principal, request.slot as string, request.tier ?? "memory");
    if (!document) throw notFound(`in slot ${request.slot}`);
  }

  // Links name a memory by id or by slot (resolved like a slot read).
  const linked = new Map<string, MemoryDocument>();
  const ids = document.links.filter((l) => uuidPattern.test(l));
  for (const doc of (await models.lexical.loadDocuments(g, ids)).values()) {
    if (canSee(doc, principal) && doc.id !== document.id) linked.set(doc.id, doc);
  }
  for (const slot of document.links.filter((l) => !uuidPattern.test(l))) {
    const doc = await bySlot(models, g, principal, slot, "memory");
    if (doc && doc.id !== document.id) linked.set(doc.id, doc);
  }

  const pointers = tagClause("links", [document.id, document.slot]);
  const backlinks =
    pointers === null
      ? []
      : (await models.lexical.searchDocuments(g, `${pointers} ${lexicalVisibility(principal)}`, maxBacklinks))
          .filter((d) => d.id !== document.id && canSee(d, principal))
          .sort((a, b) => a.slot.localeCompare(b.slot) || a.id.localeCompare(b.id));

  return {
    document,
    links: [...linked.values()].map(toRef),
    backlinks: backlinks.map(toRef),
    ...(document.episode ? { neighbours: await neighboursOf(models, g, document, principal) } : {}),
    position,
  };
}

/** The visible memories just before and just after a memory in its episode. */
async function neighboursOf(
  models: ReadModels,
  g: number,
  document: MemoryDocument,
  principal: ParsedGetMemoryRequest["principal"],
) {
  const found = (await models.lexical.episodeNeighbours(g, [document], [lexicalVisibility(principal)])).get(
    document.id,
  );
  const order = episodeOrder(document);
  const visible = (found ?? []).filter((d) => canSee(d, principal));
  const previous = visible.find((d) => episodeOrder(d) < order);
  const next = visible.find((d) => episodeOrder(d) > order);
  return { previous: previous ? toRef(previous) : null, next: next ? toRef(next) : null };
}

/**
 * A read as of a past point: the document folded from the log up to it. Its links and
 * backlinks are those today's index knows, shown as they were then (left out if they did not
 * exist then). A slot names the memory that held it then.
 */
async function readAsOf(
  models: ReadModels,
  sources: LogSources,
  request: ParsedGetMemoryRequest,
  asOf: AsOf,
): Promise<GetMemoryReply> {
  const { principal } = request;
  const position = await resolveAsOf(sources, asOf);
  let document: MemoryDocument | null | undefined;
  if (request.id !== undefined) {
    document = await documentAsOf(sources, request.id, position);
    if (
      document &&
      (!canSee(document, principal) || (request.tier !== undefined && document.tier !== request.tier))
    )
      document = null;
  } else {
    const tier = request.tier ?? "memory";
    const all = await foldFromLog(sources, await sources.log.readTenantMemories(principal.tenant, position));
    const holders = [...all.values()].filter(
      (d) =>
        d.slot === request.slot &&
        d.tier === tier &&
        defaultStatuses({ tier }).includes(d.status) &&
        canSee(d, principal),
    );
    document = preferred(principal, holders);
  }
  if (!document) {
    throw new CairnError(
      "not_found",
      `no memory ${request.id ?? request.slot} that you could see as of position ${position}`,
      {
        hint: "it may not have existed yet; read its history to see when it was written",
      },
    );
  }
  let today: GetMemoryReply | undefined;
  try {
    today = await getMemory(models, sources, {
      ...request,
      id: document.id,
      slot: undefined,
      asOf: undefined,
      afterPosition: undefined,
    });
  } catch {
    today = undefined;
  }
  const refs = [...(today?.links ?? []), ...(today?.backlinks ?? [])].map((r) => r.id);
  const streams = await sources.log.readStreams(refs.map((id) => `memory-${id}`));
  const then = await foldFromLog(
    sources,
    [...streams.values()].flat().filter((e) => e.position <= position),
  );
  const asThen = (refsToday: LinkRef[]) =>
    refsToday.flatMap((r) => {
      const doc = then.get(r.id);
      return doc && canSee(doc, principal) ? [toRef(doc)] : [];
    });
  return {
    document,
    links: asThen(today?.links ?? []),
    backlinks: asThen(today?.backlinks ?? []),
    position,
  };
}
