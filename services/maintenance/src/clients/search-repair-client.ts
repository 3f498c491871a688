// The search service's inventory and re-projection, for the doctor and the repair job.
import { requestRpc } from "@cairn/bus";
import {
  type InventoryDocument,
  type InventoryReply,
  type ProjectionName,
  type ReprojectReply,
  searchRepairSubjects,
} from "@cairn/contracts";
import type { NatsConnection } from "@nats-io/nats-core";

export type ReadModelInventory = {
  projection: ProjectionName;
  generation: number;
  position: number;
  documents: Map<string, InventoryDocument>;
};

export type SearchRepairClient = {
  /** Every document of a read model (all pages), or only the listed ids it holds. */
  inventory(
    projection: ProjectionName,
    options: { tenant?: string; ids?: string[] },
  ): Promise<ReadModelInventory>;
  reproject(ids: readonly string[], projections?: ProjectionName[]): Promise<ReprojectReply>;
};

export function createSearchRepairClient(nc: NatsConnection, timeoutMs: number): SearchRepairClient {
  const request = <T>(subject: string, payload: unknown) =>
    requestRpc<T>(nc, subject, payload, { timeoutMs });
  return {
    async inventory(projection, options) {
      const documents = new Map<string, InventoryDocument>();
      let generation = 0;
      let position = 0;
      const tenant = options.tenant === undefined ? {} : { tenant: options.tenant };
      if (options.ids) {
        for (let i = 0; i < options.ids.length; i += 1000) {
          const page = await request<InventoryReply>(searchRepairSubjects.inventory, {
            projection,
            ...tenant,
            ids: options.ids.slice(i, i + 1000),
          });
          ({ generation, position } = page);
          for (const d of page.documents) documents.set(d.id, d);
        }
        return { projection, generation, position, documents };
      }
      let cursor: string | null = null;
      let first = true;
      do {
        const page: InventoryReply = await request<InventoryReply>(searchRepairSubjects.inventory, {
          projection,
          ...tenant,
          limit: 2000,
          ...(cursor ? { cursor } : {}),
        });
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
        const reply = await request<ReprojectReply>(searchRepairSubjects.reproject, {
          ids: ids.slice(i, i + 500),
          ...(projections ? { projections } : {}),
        });
        replies.projections.push(...reply.projections);
      }
      return replies;
    },
  };
}
