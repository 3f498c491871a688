// The gateway's view of the services behind it: one function per NATS request it makes.
// Every request carries the authenticated principal; the services filter by it.
import { call } from "@cairn/bus";
import {
  type AsOf,
  CairnError,
  type CandidateIdsReply,
  type CandidateIdsRequest,
  type CandidateScores,
  type CandidatesReply,
  type CandidatesRequest,
  type CountReply,
  type CountRequest,
  type DoctorReport,
  type ExportPageReply,
  type ExportPageRequest,
  type GetMemoryReply,
  type HealthReply,
  type HistoryReply,
  healthRpc,
  type IngestCommandName,
  type ingestCommandSchemas,
  ingestRpcs,
  isCairnError,
  type MemoryDocument,
  maintenanceRpcs,
  type PlanResult,
  type Principal,
  rankingRpcs,
  searchRpcs,
  type Tier,
  type WriteResult,
} from "@cairn/contracts";
import { passesFloor } from "@cairn/memory-model";
import type { Logger } from "@cairn/telemetry";
import type { NatsConnection } from "@nats-io/nats-core";
import type { z } from "zod";
import type { ExpandReplyFields, KeyWithMemories, RankedCandidate, RecalledKey } from "./ranking-contract.ts";

/** A command as the gateway builds it: everything but the principal, which it adds itself. */
export type CommandInput<N extends IngestCommandName> = Omit<
  z.input<(typeof ingestCommandSchemas)[N]>,
  "principal"
>;

export type GetRequest = {
  id?: string | undefined;
  slot?: string | undefined;
  tier?: Tier | undefined;
  afterPosition?: number | undefined;
  asOf?: AsOf | undefined;
};

export type RerankOutcome = { ranked: RankedCandidate[]; ranking: "ranked" | "search_order" };

export type CairnBackend = {
  command<N extends IngestCommandName>(
    principal: Principal,
    name: N,
    input: Partial<CommandInput<N>>,
  ): Promise<WriteResult | PlanResult>;
  candidates(principal: Principal, request: Omit<CandidatesRequest, "principal">): Promise<CandidatesReply>;
  /** The same query answered with ids and scores only (what a recall re-ranks). */
  candidateIds(
    principal: Principal,
    request: Omit<CandidateIdsRequest, "principal">,
  ): Promise<CandidateIdsReply>;
  /** The current documents of these memories that the principal may see, by id. */
  documents(principal: Principal, ids: readonly string[]): Promise<Map<string, MemoryDocument>>;
  /** How many memories the principal may see pass the filters (no document read). */
  count(principal: Principal, request: Omit<CountRequest, "principal">): Promise<CountReply>;
  get(principal: Principal, request: GetRequest): Promise<GetMemoryReply>;
  history(principal: Principal, id: string, afterPosition?: number): Promise<HistoryReply>;
  /** A page of export records of what the principal may see (`cairn.search.export`). */
  exportPage(principal: Principal, request: Omit<ExportPageRequest, "principal">): Promise<ExportPageReply>;
  /** Skip rules and expansion terms for a query; none when the ranking service does not answer. */
  expand(principal: Principal, query: string, afterPosition?: number): Promise<ExpandReplyFields>;
  /** Re-ranks candidates; in search order when the ranking service does not answer. */
  rerank(
    principal: Principal,
    query: string,
    candidates: CandidateScores[],
    limit: number,
    expansions?: string[],
    explain?: boolean,
  ): Promise<RerankOutcome>;
  recallKeys(
    principal: Principal,
    query: string,
    limit: number,
    afterPosition?: number,
  ): Promise<{ keys: RecalledKey[]; source: "ranking" | "search" }>;
  readKey(
    principal: Principal,
    key: string,
    limit: number,
    afterPosition?: number,
  ): Promise<KeyWithMemories & { source: "ranking" | "search" }>;
  health(service: "ingest" | "search" | "ranking" | "maintenance"): Promise<HealthReply>;
  /** The doctor's status, summary line and findings for a tenant (cheap; no memory content). */
  doctorSummary(tenant: string): Promise<DoctorReport>;
};

export type BackendOptions = { timeoutMs?: number; logger?: Logger | undefined };

/** How long a keyed command waits for an answer before it is sent again: a quarter of the timeout, at most 2 s. */
const resendAfter = (totalMs: number) => Math.min(2000, Math.max(250, totalMs / 4));

/**
 * A command with an idempotency key is safe to send again: when no answer comes within
 * `resendAfter` (the copy that took it died, NATS restarted), it is sent once more, with the
 * same key, until `totalMs` has passed. A service that is back answers the next attempt (a
 * write that did land answers what it did), so the caller waits seconds, not the whole
 * timeout. Any other failure is the answer.
 */
async function resendUntilAnswered<T>(
  attempt: (waitMs: number, resent: boolean) => Promise<T>,
  totalMs: number,
): Promise<T> {
  const deadline = Date.now() + totalMs;
  let resending = false;
  for (;;) {
    try {
      return await attempt(Math.max(1, Math.min(resendAfter(totalMs), deadline - Date.now())), resending);
    } catch (error) {
      const code = isCairnError(error) ? error.code : undefined;
      // Once a first attempt went unanswered, no copy listening means one is starting again.
      const retry = code === "timeout" || (resending && code === "unavailable");
      if (!retry || Date.now() + 250 >= deadline) throw error;
      if (code === "unavailable") await new Promise((resolve) => setTimeout(resolve, 250));
      resending = true;
    }
  }
}

function withoutReplayMark(result: WriteResult): WriteResult {
  const { replayed: _mark, ...rest } = result;
  return rest;
}

/** What ranking is sent of a candidate: its scores (a candidate read with its document keeps it here). */
function scoresOf(candidate: CandidateScores): CandidateScores {
  const { id, lexical, vector, fused, coverage, episode, belowFloor } = candidate;
  return {
    id,
    lexical,
    vector,
    fused,
    ...(coverage === undefined ? {} : { coverage }),
    ...(episode === undefined ? {} : { episode }),
    ...(belowFloor === undefined ? {} : { belowFloor }),
  };
}

/** Ranking lands after the gateway; until it answers, reads fall back to search order. */
function isNoResponder(error: unknown): boolean {
  return error instanceof CairnError && error.code === "unavailable";
}

export function createCairnBackend(nc: NatsConnection, options: BackendOptions = {}): CairnBackend {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const timeout = { timeoutMs };

  const candidates: CairnBackend["candidates"] = (principal, req) =>
    call(nc, searchRpcs.candidates, { ...req, principal }, timeout);

  /** Keys derived from search candidates: the labels the matching memories carry. */
  async function recallFromSearch(
    principal: Principal,
    query: string,
    limit: number,
    afterPosition?: number,
  ) {
    const reply = await candidates(principal, {
      query,
      candidateK: 50,
      ...(afterPosition === undefined ? {} : { afterPosition }),
    });
    const byLabel = new Map<string, RecalledKey>();
    reply.candidates.forEach((c, rank) => {
      for (const label of c.document.keys) {
        const k = label.toLowerCase();
        const entry = byLabel.get(k) ?? { id: null, label, type: null, score: 0, memoryCount: 0 };
        entry.memoryCount += 1;
        entry.score += 1 / (60 + rank + 1);
        byLabel.set(k, entry);
      }
    });
    return [...byLabel.values()].sort((a, b) => b.score - a.score).slice(0, limit);
  }

  const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
  const after = (position: number | undefined) => (position === undefined ? {} : { afterPosition: position });

  return {
    command(principal, name, input) {
      const payload = { ...input, principal } as never;
      if (typeof (input as { idempotencyKey?: unknown }).idempotencyKey !== "string")
        return call(nc, ingestRpcs[name], payload, timeout);
      // The answer to a resend is marked replayed when the first send landed: it is this
      // write's own answer, not an earlier one's, and is passed on without the mark.
      return resendUntilAnswered(
        (waitMs, resent) =>
          call(nc, ingestRpcs[name], payload, { timeoutMs: waitMs }).then((r): WriteResult | PlanResult =>
            resent && "replayed" in r ? withoutReplayMark(r) : r,
          ),
        timeoutMs,
      );
    },
    candidates,
    candidateIds(principal, req) {
      return call(nc, searchRpcs.candidateIds, { ...req, principal }, timeout);
    },
    async documents(principal, ids) {
      if (ids.length === 0) return new Map();
      const reply = await call(nc, searchRpcs.documents, { principal, ids: [...ids] }, timeout);
      return new Map(reply.documents.map((d) => [d.id, d]));
    },
    count(principal, req) {
      return call(nc, searchRpcs.count, { ...req, principal }, timeout);
    },
    get(principal, req) {
      const payload: Record<string, unknown> = { principal };
      if (req.id !== undefined) payload.id = req.id;
      if (req.slot !== undefined) payload.slot = req.slot;
      if (req.tier !== undefined) payload.tier = req.tier;
      if (req.afterPosition !== undefined) payload.afterPosition = req.afterPosition;
      if (req.asOf !== undefined) payload.asOf = req.asOf;
      return call(nc, searchRpcs.get, payload as never, timeout);
    },
    exportPage(principal, request) {
      return call(nc, searchRpcs.export, { ...request, principal }, timeout);
    },
    history(principal, id, afterPosition) {
      return call(nc, searchRpcs.history, { principal, id, ...after(afterPosition) }, timeout);
    },
    async expand(principal, query, afterPosition) {
      try {
        const reply = await call(
          nc,
          rankingRpcs.expand,
          { principal, query, ...after(afterPosition) },
          timeout,
        );
        return { skip: reply.skip, terms: reply.terms.slice(0, 50) };
      } catch (error) {
        if (!isNoResponder(error)) throw error;
        return { skip: null, terms: [] };
      }
    },
    async rerank(principal, query, list, limit, expansions = [], explain = false) {
      if (list.length === 0) return { ranked: [], ranking: "ranked" };
      try {
        const reply = await call(
          nc,
          rankingRpcs.rerank,
          {
            principal,
            query,
            // Scores only: ranking reads the memories' terms from its own read model.
            candidates: list.map(scoresOf),
            k: Math.min(200, limit),
            explain,
            expansions: expansions.slice(0, 50),
          },
          timeout,
        );
        const byId = new Map(list.map((c) => [c.id, c]));
        const ranked = reply.results.flatMap(({ id, score, factors, signals, intent }) => {
          const candidate = byId.get(id);
          return candidate
            ? [
                {
                  candidate,
                  score,
                  factors: factors ?? null,
                  signals: signals ?? null,
                  intent: intent ?? null,
                },
              ]
            : [];
        });
        return { ranked, ranking: "ranked" };
      } catch (error) {
        if (!isNoResponder(error)) throw error;
        options.logger?.debug({ subject: rankingRpcs.rerank.subject }, "ranking unavailable; search order");
        // Without ranking's understanding of the question, what search marked below the
        // relevance floor stays out.
        const returnable = list.filter((candidate) => passesFloor(candidate, undefined));
        const ranked = returnable.slice(0, limit).map((candidate) => ({
          candidate,
          score: candidate.fused,
          factors: null,
          signals: null,
          intent: null,
        }));
        return { ranked, ranking: "search_order" };
      }
    },
    async recallKeys(principal, query, limit, afterPosition) {
      try {
        const reply = await call(
          nc,
          rankingRpcs.keysRecall,
          { principal, query, limit, ...after(afterPosition) },
          timeout,
        );
        const keys = reply.keys.map((k) => ({
          id: k.keyId,
          label: k.label,
          type: k.type,
          score: k.score,
          memoryCount: k.linkedCount,
        }));
        return { keys, source: "ranking" };
      } catch (error) {
        if (!isNoResponder(error)) throw error;
        return { keys: await recallFromSearch(principal, query, limit, afterPosition), source: "search" };
      }
    },
    async readKey(principal, key, limit, afterPosition) {
      try {
        let keyId = isUuid(key) ? key : undefined;
        if (keyId === undefined) {
          const found = await call(
            nc,
            rankingRpcs.keysRecall,
            { principal, query: key, limit: 20, ...after(afterPosition) },
            timeout,
          );
          const wanted = key.toLowerCase();
          keyId = found.keys.find(
            (k) => k.label.toLowerCase() === wanted || k.aliases.some((a) => a.toLowerCase() === wanted),
          )?.keyId;
          if (keyId === undefined) {
            throw new CairnError("not_found", `no key "${key}"`, {
              hint: "call recall with a question to find the keys that exist",
            });
          }
        }
        const reply = await call(
          nc,
          rankingRpcs.keysRead,
          { principal, keyId, limit, ...after(afterPosition) },
          timeout,
        );
        return {
          key: { id: reply.key.keyId, label: reply.key.label, type: reply.key.type },
          memories: reply.memories.map((m) => ({
            id: m.id,
            slot: m.slot,
            title: m.title,
            weight: m.linkWeight,
          })),
          source: "ranking",
        };
      } catch (error) {
        if (!isNoResponder(error)) throw error;
        const reply = await candidates(principal, {
          query: key,
          mode: "lexical",
          candidateK: 100,
          ...after(afterPosition),
        });
        const wanted = key.toLowerCase();
        const memories = reply.candidates
          .filter((c) => c.document.keys.some((k) => k.toLowerCase() === wanted))
          .slice(0, limit)
          .map((c) => ({ id: c.id, slot: c.document.slot, title: c.document.title, weight: null }));
        if (memories.length === 0) {
          throw new CairnError("not_found", `no memory you can see is linked to the key "${key}"`, {
            hint: "call recall with a question to find the keys that exist",
          });
        }
        return { key: { id: null, label: key, type: null }, memories, source: "search" };
      }
    },
    health(service) {
      return call(nc, healthRpc(service), {}, { timeoutMs: 2000 });
    },
    doctorSummary(tenant) {
      return call(nc, maintenanceRpcs.doctor, { tenant, summaryOnly: true }, { timeoutMs: 3000 });
    },
  };
}
