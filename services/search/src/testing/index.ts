export type { FakeEmbeddingsServer } from "./fake-embeddings-server.ts";
export { startFakeEmbeddingsServer } from "./fake-embeddings-server.ts";
export type { ReadModelInspector } from "./read-model-inspector.ts";
export { inspectReadModels } from "./read-model-inspector.ts";
export { logLevel, principals, searchTest } from "./search-test.ts";
export type { SearchInfra, SearchUnderTest, StartSearchOptions } from "./search-under-test.ts";
export { searchEnv, startSearchUnderTest } from "./search-under-test.ts";
