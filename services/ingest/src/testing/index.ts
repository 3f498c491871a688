export type { IngestUnderTest } from "./ingest-under-test.ts";
export {
  admin,
  alice,
  bob,
  documentOf,
  outsider,
  refusal,
  refusedWith,
  reviewer,
  startIngestUnderTest,
} from "./ingest-under-test.ts";
