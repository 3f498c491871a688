// The search service's inventory and re-projection, for the doctor and the repair job.
import { call } from "@cairn/bus";
import {
  type InventoryDocument,
  type InventoryReply,
  type ReprojectReply,
  type RetrieverName,
  searchRpcs,
} from "@cairn/contracts";
import type { NatsConnection } from "@nats-io/nats-core";

export type ReadModelInventory = {
  projection: RetrieverName;
  generation: number;
  position: number;
  documents: Map<string, InventoryDocument>;
};

export type SearchRepairClient = {
  /** Every document of a read model (all pages), or only the listed ids it holds. */
  inventory(
    projection: RetrieverName,
    options: { tenant?: string; ids?: string[] },
  ): Promise<ReadModelInventory>;
  reproject(ids: readonly string[], projections?: RetrieverName[]): Promise<ReprojectReply>;
};

export function createSearchRepairClient(nc: NatsConnection, timeoutMs: number): SearchRepairClient {
  const timeout = { timeoutMs };
  return {
    async inventory(projection, options) {
      const documents = new Map<string, InventoryDocument>();
      let generation = 0;
      let position = 0;
      const tenant = options.tenant === undefined ? {} : { tenant: options.tenant };
      if (options.ids) {
        for (let i = 0; i < options.ids.length; i += 1000) {
          const page = await call(
            nc,
            searchRpcs.inventory,
            { projection, ...tenant, ids: options.ids.slice(i, i + 1000) },
            timeout,
          );
          ({ generation, position } = page);
          for (const d of page.documents) documents.set(d.id, d);
        }
        return { projection, generation, position, documents };
      }
      let cursor: string | null = null;
      let first = true;
      do {
        const page: InventoryReply = await call(
          nc,
          searchRpcs.inventory,
          { projection, ...tenant, limit: 2000, ...(cursor ? { cursor } : {}) },
          timeout,
        );
        // The position of the first page: documents changed later are compared leniently.
        if (first) ({ generation, position } = page);
        first = false;
        for (const d of page.documents) documents.set(d.id, d);
        cursor = page.nextCursor;
      } while (cursor !== null);
      return { projection, generation, position, documents };
    },
    async reproject(ids, projections) {
      const replies: ReprojectReply = { projections: [] };
      for (let i = 0; i < ids.length; i += 500) {
        const reply = await call(
          nc,
          searchRpcs.reproject,
          { ids: ids.slice(i, i + 500), ...(projections ? { projections } : {}) },
          timeout,
        );
        replies.projections.push(...reply.projections);
      }
      return replies;
    },
  };
}
