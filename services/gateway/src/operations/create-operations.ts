// The gateway's use cases, shared by the MCP tools and the REST routes, each in its own file:
// each turns a caller's request into NATS requests to ingest, search and ranking, and shapes
// the answer. This binds them to one set of dependencies.
import type { ExportPageReply, ExportPageRequest, IngestCommandName } from "@cairn/contracts";
import type { CommandInput } from "../backend/cairn-backend.ts";
import { context } from "./build-context.ts";
import type { Caller } from "./caller.ts";
import { importRecords } from "./import-records.ts";
import { countOpen, list } from "./list-memories.ts";
import { memoryHistory } from "./memory-history.ts";
import type { OperationsDeps, ReadOptions } from "./operations-deps.ts";
import { read, readMemory } from "./read-memory.ts";
import { readKey, recall } from "./recall-keys.ts";
import { search } from "./search-memories.ts";
import { status } from "./service-status.ts";
import { readTenantSettings } from "./tenant-settings.ts";
import { write } from "./write-command.ts";

export type { ContextInput, ContextMemory, ContextResult } from "./build-context.ts";
export type { ImportRecordsResult } from "./import-records.ts";
export type { ListResult } from "./list-memories.ts";
export type { OperationsDeps, ReadOptions } from "./operations-deps.ts";
export type { SearchHit, SearchInput, SearchResult } from "./search-memories.ts";
export type { RecordedTenantSettings, TenantSettingsSummary } from "./tenant-settings.ts";
export type { WriteOutcome } from "./write-command.ts";

type Bound<F> = F extends (deps: OperationsDeps, ...rest: infer A) => infer R ? (...rest: A) => R : never;

export type Operations = {
  search: Bound<typeof search>;
  list: Bound<typeof list>;
  countOpen: Bound<typeof countOpen>;
  context: Bound<typeof context>;
  read: Bound<typeof read>;
  readMemory: Bound<typeof readMemory>;
  history: Bound<typeof memoryHistory>;
  recall: Bound<typeof recall>;
  readKey: Bound<typeof readKey>;
  write<N extends IngestCommandName>(
    caller: Caller,
    name: N,
    input: Partial<CommandInput<N>>,
  ): ReturnType<typeof write>;
  status: Bound<typeof status>;
  /** A page of Cairn export records of what the caller may see. */
  exportPage(caller: Caller, request: Omit<ExportPageRequest, "principal">): Promise<ExportPageReply>;
  /** An import plan written through ingest as the caller. */
  importRecords: Bound<typeof importRecords>;
  /** The tenant's settings as recorded, with their version (admins). */
  readSettings: Bound<typeof readTenantSettings>;
};

export function createOperations(deps: OperationsDeps): Operations {
  return {
    search: (...a) => search(deps, ...a),
    list: (...a) => list(deps, ...a),
    countOpen: (...a) => countOpen(deps, ...a),
    context: (...a) => context(deps, ...a),
    read: (...a) => read(deps, ...a),
    readMemory: (...a) => readMemory(deps, ...a),
    history: (...a) => memoryHistory(deps, ...a),
    recall: (...a) => recall(deps, ...a),
    readKey: (...a) => readKey(deps, ...a),
    write: (caller, name, input) => write(deps, caller, name, input),
    status: (...a) => status(deps, ...a),
    exportPage: (caller, request) => deps.backend.exportPage(caller.principal, request),
    importRecords: (...a) => importRecords(deps, ...a),
    readSettings: (...a) => readTenantSettings(deps, ...a),
  };
}

export type { ReadOptions as OperationReadOptions };
