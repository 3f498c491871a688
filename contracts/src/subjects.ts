/** The five services; each answers `cairn.health.<service>`. */
export const serviceNames = ["ingest", "search", "ranking", "maintenance", "gateway"] as const;
export type ServiceName = (typeof serviceNames)[number];

/** Backend services that answer NATS requests (the gateway answers HTTP). */
export const backendServiceNames = ["ingest", "search", "ranking", "maintenance"] as const;
export type BackendServiceName = (typeof backendServiceNames)[number];

export function healthSubject(service: ServiceName): string {
  return `cairn.health.${service}`;
}

/** Queue group shared by copies of one service so a request reaches exactly one of them. */
export function queueGroup(service: ServiceName): string {
  return `cairn-${service}`;
}
