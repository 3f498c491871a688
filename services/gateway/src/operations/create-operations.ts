// The gateway's use cases, shared by the MCP tools and the REST routes: each turns a caller's
// request into NATS requests to ingest, search and ranking, and shapes the answer.
import {
  CairnError,
  type Candidate,
  type GetMemoryReply,
  type IngestCommandName,
  type Kind,
  type MemoryDocument,
  type PlanResult,
  type RetrievalMode,
  type Status,
  type Tier,
  type WriteResult,
} from "@cairn/contracts";
import type { Logger } from "@cairn/telemetry";
import { requireReviewer, requireScopeAllowed } from "../auth/role-checks.ts";
import type { CairnBackend, CommandInput } from "../backend/cairn-backend.ts";
import type { SkipReason } from "../backend/ranking-contract.ts";
import type { Caller, Consistency, WritePositions } from "./caller.ts";
import { type ConflictHint, findConflictHints } from "./conflict-hints.ts";
import { packWithinBudget } from "./pack-within-budget.ts";

export type OperationsDeps = {
  backend: CairnBackend;
  positions: WritePositions;
  logger?: Logger | undefined;
  /** Candidates fetched for re-ranking (default 200; at least 3 × the asked limit). */
  rerankCandidates?: number | undefined;
};

export type ReadOptions = { consistency?: Consistency; afterPosition?: number | undefined };

export type SearchInput = {
  query: string;
  tier?: Tier | undefined;
  status?: Status[] | undefined;
  kind?: Kind[] | undefined;
  tags?: string[] | undefined;
  project?: string | undefined;
  agent?: string | undefined;
  mode?: RetrievalMode | undefined;
  limit?: number | undefined;
  includeExpired?: boolean | undefined;
};

export type SearchHit = {
  document: MemoryDocument;
  score: number;
  lexical: Candidate["lexical"];
  vector: Candidate["vector"];
  explanation: unknown;
};

export type SearchResult = {
  results: SearchHit[];
  ranking: "ranked" | "search_order";
  position: number;
  /** Set when the tenant's skip rules or workflow lock answered the query with nothing. */
  skipped?: SkipReason;
};

export type ContextInput = { task: string; budgetTokens?: number | undefined; project?: string | undefined };

export type ContextMemory = { document: MemoryDocument; score: number; truncatedTo: number | null };

export type ContextResult = {
  memories: ContextMemory[];
  /** Relevant memories left out for the budget: read them with memory_read if needed. */
  more: { id: string; slot: string; title: string }[];
  conflicts: ConflictHint[];
  pending: { proposals: number | null; handoffs: number | null };
  budgetTokens: number;
  usedTokens: number;
  ranking: "ranked" | "search_order";
  position: number;
  skipped?: SkipReason;
};

export type ListResult = { items: MemoryDocument[]; position: number };

export type WriteOutcome = WriteResult | PlanResult;

/** The tier each listable collection is, and the statuses that count as open in it. */
const openStatus: Record<"proposal" | "handoff", Status> = { proposal: "pending", handoff: "active" };

/** Browsing a tier has no query text: the search service treats `*` as "every document". */
const everything = "*";

function isPlan(outcome: WriteOutcome): outcome is PlanResult {
  return (outcome as PlanResult).dryRun === true;
}

export type Operations = ReturnType<typeof createOperations>;

export function createOperations(deps: OperationsDeps) {
  const { backend, positions } = deps;

  function afterPosition(caller: Caller, options: ReadOptions = {}): number | undefined {
    const explicit = options.afterPosition;
    const own = options.consistency === "strong" ? positions.last(caller.keyId) : undefined;
    if (explicit === undefined) return own;
    return own === undefined ? explicit : Math.max(explicit, own);
  }

  /** Recalls feed attention and Hebbian signals; losing one must not fail the read. */
  function recordRecalls(caller: Caller, ids: string[], viaKey: string | null, query: string | null): void {
    if (ids.length === 0) return;
    backend
      .command(caller.principal, "recalls.record", {
        memoryIds: ids.slice(0, 200),
        viaKey,
        query: query?.slice(0, 2000) ?? null,
      })
      .catch((error: unknown) => deps.logger?.debug({ err: error }, "recording recalls failed"));
  }

  async function search(
    caller: Caller,
    input: SearchInput,
    options: ReadOptions = {},
  ): Promise<SearchResult> {
    const limit = input.limit ?? 10;
    const after = afterPosition(caller, options);
    const expansion = await backend.expand(caller.principal, input.query, after);
    if (expansion.skip) return { results: [], ranking: "ranked", position: 0, skipped: expansion.skip };
    const reply = await backend.candidates(caller.principal, {
      query: input.query,
      expansions: expansion.terms,
      mode: input.mode ?? "hybrid",
      candidateK: Math.min(500, Math.max(limit * 3, deps.rerankCandidates ?? 200)),
      filters: {
        tier: input.tier ?? "memory",
        ...(input.status ? { status: input.status } : {}),
        ...(input.kind ? { kind: input.kind } : {}),
        ...(input.tags ? { tags: input.tags } : {}),
        ...(input.project ? { project: input.project } : {}),
        ...(input.agent ? { agent: input.agent } : {}),
        includeExpired: input.includeExpired ?? false,
      },
      ...(after === undefined ? {} : { afterPosition: after }),
    });
    const { ranked, ranking } = await backend.rerank(
      caller.principal,
      input.query,
      reply.candidates,
      limit,
      expansion.terms,
    );
    const results = ranked.slice(0, limit).map((r) => ({
      document: r.candidate.document,
      score: r.score,
      lexical: r.candidate.lexical,
      vector: r.candidate.vector,
      explanation: r.explanation,
    }));
    recordRecalls(
      caller,
      results.map((r) => r.document.id),
      null,
      input.query,
    );
    return { results, ranking, position: reply.position };
  }

  async function list(
    caller: Caller,
    tier: Tier,
    input: { query?: string | undefined; status?: Status[] | undefined; limit?: number | undefined },
    options: ReadOptions = {},
  ): Promise<ListResult> {
    const after = afterPosition(caller, options);
    const reply = await backend.candidates(caller.principal, {
      query: input.query ?? everything,
      mode: "lexical",
      candidateK: Math.min(500, input.limit ?? 50),
      filters: {
        tier,
        ...(input.status ? { status: input.status } : {}),
        includeExpired: true,
      },
      ...(after === undefined ? {} : { afterPosition: after }),
    });
    const items = reply.candidates.map((c) => c.document);
    if (input.query === undefined) items.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    return { items, position: reply.position };
  }

  /** How many open proposals or handoffs the caller can see; null when search cannot say. */
  async function countOpen(caller: Caller, tier: "proposal" | "handoff", options: ReadOptions = {}) {
    try {
      const { items } = await list(caller, tier, { status: [openStatus[tier]], limit: 500 }, options);
      return items.length;
    } catch (error) {
      deps.logger?.debug({ err: error, tier }, "counting open items failed");
      return null;
    }
  }

  async function context(
    caller: Caller,
    input: ContextInput,
    options: ReadOptions = {},
  ): Promise<ContextResult> {
    const budgetTokens = input.budgetTokens ?? 2000;
    const after = afterPosition(caller, options);
    const expansion = await backend.expand(caller.principal, input.task, after);
    const [reply, proposals, handoffs] = await Promise.all([
      backend.candidates(caller.principal, {
        query: input.task,
        expansions: expansion.skip ? [] : expansion.terms,
        mode: "hybrid",
        candidateK: deps.rerankCandidates ?? 200,
        filters: {
          tier: "memory",
          status: ["active"],
          ...(input.project ? { project: input.project } : {}),
          includeExpired: false,
        },
        ...(after === undefined ? {} : { afterPosition: after }),
      }),
      countOpen(caller, "proposal", { afterPosition: after }),
      countOpen(caller, "handoff", { afterPosition: after }),
    ]);
    const { ranked, ranking } = expansion.skip
      ? { ranked: [], ranking: "ranked" as const }
      : await backend.rerank(caller.principal, input.task, reply.candidates, 20, expansion.terms);
    const packed = packWithinBudget(ranked, budgetTokens, (r) => ({
      text: `${r.candidate.document.title}\n${r.candidate.document.content}`,
      overheadTokens: 40,
    }));
    const memories = packed.included.map(({ item, truncatedTo }) => ({
      document: item.candidate.document,
      score: item.score,
      truncatedTo,
    }));
    recordRecalls(
      caller,
      memories.map((m) => m.document.id),
      null,
      input.task,
    );
    return {
      memories,
      more: packed.omitted.map((r) => ({
        id: r.candidate.id,
        slot: r.candidate.document.slot,
        title: r.candidate.document.title,
      })),
      conflicts: findConflictHints(ranked.map((r) => r.candidate.document)),
      pending: { proposals, handoffs },
      budgetTokens,
      usedTokens: packed.usedTokens,
      ranking,
      position: reply.position,
      ...(expansion.skip ? { skipped: expansion.skip } : {}),
    };
  }

  async function read(
    caller: Caller,
    target: { id?: string | undefined; slot?: string | undefined; tier?: Tier | undefined },
    options: ReadOptions = {},
  ): Promise<GetMemoryReply> {
    const after = afterPosition(caller, options);
    const reply = await backend.get(caller.principal, { ...target, afterPosition: after });
    if (target.tier !== undefined && reply.document.tier !== target.tier) {
      throw new CairnError(
        "not_found",
        `${target.id ?? target.slot} is a ${reply.document.tier}, not a ${target.tier}`,
        {
          hint: `read it with the ${reply.document.tier} tools`,
        },
      );
    }
    return reply;
  }

  async function readMemory(
    caller: Caller,
    id: string,
    viaKey: string | null,
    options: ReadOptions = {},
  ): Promise<GetMemoryReply> {
    const reply = await read(caller, { id }, options);
    const keyId = viaKey && /^[0-9a-f-]{36}$/i.test(viaKey) ? viaKey : null;
    recordRecalls(caller, [id], keyId, viaKey && !keyId ? `key:${viaKey}` : null);
    return reply;
  }

  async function recall(caller: Caller, query: string, limit: number, options: ReadOptions = {}) {
    return backend.recallKeys(caller.principal, query, limit, afterPosition(caller, options));
  }

  async function readKey(caller: Caller, key: string, limit: number, options: ReadOptions = {}) {
    return backend.readKey(caller.principal, key, limit, afterPosition(caller, options));
  }

  /** Sends a command to ingest after the gateway's own checks; remembers the position it reached. */
  async function write<N extends IngestCommandName>(
    caller: Caller,
    name: N,
    input: Partial<CommandInput<N>>,
  ): Promise<WriteOutcome> {
    const record = input as Record<string, unknown>;
    for (const field of ["memory", "proposal", "handoff", "replacement"]) {
      const body = record[field] as { scope?: "agent" | "team" | "global" } | undefined;
      if (body) requireScopeAllowed(caller.principal, body.scope);
    }
    if (name === "proposal.promote" || name === "proposal.reject") requireReviewer(caller.principal);
    const outcome = await backend.command(caller.principal, name, input);
    if (!isPlan(outcome)) positions.record(caller.keyId, outcome.position);
    return outcome;
  }

  async function status(caller: Caller) {
    const services = ["ingest", "search", "ranking", "maintenance"] as const;
    const health = await Promise.all(
      services.map(async (service) => {
        try {
          const reply = await backend.health(service);
          return [service, { ok: reply.ok, instance: reply.instance, version: reply.version }] as const;
        } catch (error) {
          return [service, { ok: false, error: (error as CairnError).code ?? "unavailable" }] as const;
        }
      }),
    );
    const [proposals, handoffs, doctor] = await Promise.all([
      countOpen(caller, "proposal", { consistency: "strong" }),
      countOpen(caller, "handoff", { consistency: "strong" }),
      // The maintenance doctor's verdict for the tenant; null when maintenance does not answer.
      backend.doctorSummary(caller.principal.tenant).then(
        (r) => ({
          status: r.status,
          summary: r.summary,
          findings: r.findings.map((f) => ({
            code: f.code,
            severity: f.severity,
            count: f.count,
            fix: f.fix,
          })),
        }),
        () => null,
      ),
    ]);
    return {
      principal: caller.principal,
      services: Object.fromEntries(health),
      ranking: health.find(([s]) => s === "ranking")?.[1].ok ? "ranked" : "search_order",
      pending: { proposals, handoffs },
      lastWritePosition: positions.last(caller.keyId) ?? null,
      health: doctor,
    };
  }

  return { search, list, countOpen, context, read, readMemory, recall, readKey, write, status };
}
