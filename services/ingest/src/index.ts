// What the ingest package offers the rest of Cairn: the service, and the relay's parts the
// benchmarks drive on their own.
export type { IngestEnv } from "./env.ts";
export { ingestEnvSchema } from "./env.ts";
export { createIngestService } from "./ingest-service.ts";
export { startRelay } from "./relay/relay-committed-events.ts";
