// What maintenance asks the read side: memory signals from ranking (feedback, recalls,
// depth, attention) and vector neighbours from search. Both answer for the tenant's
// maintenance principal, which sees every memory of its tenant.
import { call } from "@cairn/bus";
import { type MemorySignals, type Principal, rankingRpcs, searchRpcs } from "@cairn/contracts";
import type { NatsConnection } from "@nats-io/nats-core";

export type ReadClients = {
  /**
   * Signals of these memories (those ranking knows); chunks of 500. With `afterPosition`,
   * ranking answers only once its projections have applied that log position (or times out),
   * so a decision never rests on signals older than the view it was made from.
   */
  signals(ids: readonly string[], afterPosition?: number): Promise<Map<string, MemorySignals>>;
  /** Active memories whose embedding is nearest to `text`, with their cosine similarity. */
  vectorNeighbours(text: string, k: number): Promise<{ id: string; similarity: number }[]>;
};

export function createReadClients(
  nc: NatsConnection,
  options: { principal: Principal; timeoutMs: number },
): ReadClients {
  return {
    async signals(ids, afterPosition) {
      const out = new Map<string, MemorySignals>();
      const unique = [...new Set(ids)];
      for (let i = 0; i < unique.length; i += 500) {
        const reply = await call(
          nc,
          rankingRpcs.signals,
          {
            principal: options.principal,
            ids: unique.slice(i, i + 500),
            ...(afterPosition === undefined ? {} : { afterPosition }),
          },
          { timeoutMs: options.timeoutMs },
        );
        for (const s of reply.signals) out.set(s.id, s);
      }
      return out;
    },
    async vectorNeighbours(text, k) {
      const query = text.slice(0, 4000).trim();
      if (query.length === 0) return [];
      const reply = await call(
        nc,
        searchRpcs.candidates,
        { principal: options.principal, query, mode: "vector", candidateK: k },
        { timeoutMs: options.timeoutMs },
      );
      return reply.candidates.map((c) => ({ id: c.id, similarity: c.vector?.score ?? 0 }));
    },
  };
}
