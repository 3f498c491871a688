// Where each ranking read model lives in Redis. Every key starts with the service prefix,
// then the read model (`sig` signals, `keys` key graph), then the tenant.

export type RedisLayout = ReturnType<typeof redisLayout>;

export function redisLayout(prefix: string) {
  return {
    prefix,
    checkpoint: (projection: string) => `${prefix}checkpoint:${projection}`,
    signals: (tenant: string) => {
      const t = `${prefix}sig:${tenant}:`;
      return {
        card: (id: string) => `${t}card:${id}`,
        feedback: (id: string) => `${t}fb:${id}`,
        recalls: (id: string) => `${t}rc:${id}`,
        depth: (id: string) => `${t}depth:${id}`,
        attention: `${t}attention`,
        hot: `${t}hot`,
        cooccurrence: (entity: string) => `${t}co:${entity}`,
        entityCounts: `${t}entities`,
        entityLabels: `${t}entity-labels`,
        liveCount: `${t}live`,
        /** Document frequency of each scoring term over live memories, and their total length. */
        documentFrequency: `${t}df`,
        totalLength: `${t}length`,
        settings: `${t}settings`,
      };
    },
    keys: (tenant: string) => {
      const t = `${prefix}keys:${tenant}:`;
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
    },
  };
}
