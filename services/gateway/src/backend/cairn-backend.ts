// The gateway's view of the services behind it: one function per NATS request it makes.
// Every request carries the authenticated principal; the services filter by it.
import { call } from "@cairn/bus";
import {
  type AsOf,
  CairnError,
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
  maintenanceRpcs,
  type PlanResult,
  type Principal,
  type ResultsReply,
  type ResultsRequest,
  rankingRpcs,
  searchRpcs,
  type Tier,
  type WriteResult,
} from "@cairn/contracts";
import type { Logger } from "@cairn/telemetry";
import type { NatsConnection } from "@nats-io/nats-core";
import type { z } from "zod";
import type { ExpandReplyFields, KeyWithMemories, RecalledKey } from "./ranking-contract.ts";

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

export type CairnBackend = {
  command<N extends IngestCommandName>(
    principal: Principal,
    name: N,
    input: Partial<CommandInput<N>>,
  ): Promise<WriteResult | PlanResult>;
  candidates(principal: Principal, request: Omit<CandidatesRequest, "principal">): Promise<CandidatesReply>;
  /**
   * A search's or a context's final results: the candidates re-ranked (in search order when
   * no ranking service answers) and the documents of the top `limit`.
   */
  results(principal: Principal, request: Omit<ResultsRequest, "principal">): Promise<ResultsReply>;
  /** How many memories the principal may see pass the filters (no document read). */
  count(principal: Principal, request: Omit<CountRequest, "principal">): Promise<CountReply>;
  get(principal: Principal, request: GetRequest): Promise<GetMemoryReply>;
  history(principal: Principal, id: string, afterPosition?: number): Promise<HistoryReply>;
  /** A page of export records of what the principal may see (`cairn.search.export`). */
  exportPage(principal: Principal, request: Omit<ExportPageRequest, "principal">): Promise<ExportPageReply>;
  /** Skip rules and expansion terms for a query; none when the ranking service does not answer. */
  expand(principal: Principal, query: string, afterPosition?: number): Promise<ExpandReplyFields>;
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
    results(principal, req) {
      return call(nc, searchRpcs.results, { ...req, principal }, timeout);
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
