export type { IngestUnderTest } from "./ingest-under-test.ts";
export { admin, alice, bob, outsider, reviewer, startIngestUnderTest } from "./ingest-under-test.ts";
