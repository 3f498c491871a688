// Where each ranking read model lives in Redis. Each is a projection with generations (the
// projection runtime's Redis generations): `<prefix>signals:` and `<prefix>keys:`, and inside
// a generation `…g<n>:<tenant>:…` per tenant.

export type SignalPaths = ReturnType<ReturnType<typeof signalsLayout>>;
export type KeyGraphPaths = ReturnType<ReturnType<typeof keysLayout>>;

/**
 * The fields of a memory's signals hash (`SignalPaths.memory`) that are read back as a pair or
 * by prefix: its depth and when it was set, and each agent's vote.
 */
export const depthFields = ["depth", "depthAt"] as const;
export const voteField = (agent: string) => `fb:${agent}`;
export const isVoteField = (field: string) => field.startsWith("fb:");

/** The generations' base key of each ranking read model. */
export function rankingBases(prefix: string) {
  return { signals: `${prefix}signals:`, keys: `${prefix}keys:` } as const;
}

/** The signals of one generation (its prefix `…signals:g<n>:`), per tenant. */
export function signalsLayout(generationPrefix: string) {
  return (tenant: string) => {
    const t = `${generationPrefix}${tenant}:`;
    return {
      card: (id: string) => `${t}card:${id}`,
      /**
       * A memory's signals in one hash: its recalls (`count`, `lastAt`, `reads`, `lastReadAt`),
       * its depth (`depth`, `depthAt`) and each agent's vote (`fb:<agent>`, 1 or -1).
       */
      memory: (id: string) => `${t}sig:${id}`,
      attention: `${t}attention`,
      hot: `${t}hot`,
      cooccurrence: (entity: string) => `${t}co:${entity}`,
      entityCounts: `${t}entities`,
      entityLabels: `${t}entity-labels`,
      liveCount: `${t}live`,
      settings: `${t}settings`,
    };
  };
}

/** The key graph of one generation (its prefix `…keys:g<n>:`), per tenant. */
export function keysLayout(generationPrefix: string) {
  return (tenant: string) => {
    const t = `${generationPrefix}${tenant}:`;
    return {
      key: (keyId: string) => `${t}key:${keyId}`,
      links: (keyId: string) => `${t}links:${keyId}`,
      labels: `${t}labels`,
      trigram: (gram: string) => `${t}tri:${gram}`,
      all: `${t}all`,
      memoryKeys: (memoryId: string) => `${t}mk:${memoryId}`,
      card: (memoryId: string) => `${t}card:${memoryId}`,
      liveCount: `${t}live`,
    };
  };
}

/** What a query reads: the serving generation of each read model. */
export type ReadLayout = {
  signals: ReturnType<typeof signalsLayout>;
  keys: ReturnType<typeof keysLayout>;
};
