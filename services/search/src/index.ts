// What the search package offers the rest of Cairn: the service, and its read models opened the
// way the service opens them (for `pnpm cairn rebuild` and the tools that inspect them).

export type { SearchEnv } from "./env.ts";
export { searchEnvSchema } from "./env.ts";
export type { OpenReadModels } from "./open-read-models.ts";
export { openReadModels, projectionHostOf } from "./open-read-models.ts";
/** A page of a tenant's memories as export records (`cairn.search.export`, `pnpm cairn export`). */
export type { ExportSources } from "./queries/export-memories.ts";
export { exportPage } from "./queries/export-memories.ts";
export type { SearchServiceOptions } from "./search-service.ts";
export { createSearchService, openSearchProjections } from "./search-service.ts";
