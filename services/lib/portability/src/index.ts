// The format's schemas are contracts' (search answers export pages over the bus).
export type {
  CairnExportEnd,
  CairnExportHeader,
  CairnExportRecord,
  CairnExportVersion,
  MemoryStreamEventType,
} from "@cairn/contracts";
export {
  CairnExportEndSchema,
  CairnExportHeaderSchema,
  CairnExportRecordSchema,
  CairnExportVersionSchema,
  cairnExportFormat,
  cairnExportVersion,
  memoryStreamEventTypes,
} from "@cairn/contracts";
export type { ApplyImportOptions, ImportOutcome, SendCommand } from "./apply-import.ts";
export { applyImport } from "./apply-import.ts";
export { cairnExportRecord } from "./cairn-export-record.ts";
export type { CairnExportError, ParsedCairnExport } from "./cairn-jsonl.ts";
export { cairnExportLines, encodeCairnExport, importCairnExport, parseCairnExport } from "./cairn-jsonl.ts";
export type {
  ImportItem,
  ImportMemory,
  ImportOptions,
  ImportPlan,
  ImportProblem,
  ImportStep,
  Succession,
} from "./import-plan.ts";
export { importSteps } from "./import-plan.ts";
export type { ImportFormat, ImportSource, ImportSummary } from "./import-source.ts";
export {
  formatImportSummary,
  ImportSummarySchema,
  importFormatDescriptions,
  importFormats,
  importSourceOf,
  importSummary,
  planImport,
} from "./import-source.ts";
export type { KeymemGraph } from "./keymem.ts";
export { importKeymem, KeymemGraphSchema } from "./keymem.ts";
export type { MarkdownFile } from "./markdown.ts";
export { exportMarkdownVault, fileStemForSlot, markdownFileNames, parseMarkdownVault } from "./markdown.ts";
export type { Mem0Memory } from "./mem0.ts";
export { importMem0, Mem0ExportSchema, Mem0MemorySchema } from "./mem0.ts";
export { importServerMemory, ServerMemoryEntitySchema, ServerMemoryRelationSchema } from "./server-memory.ts";
export type { ArchiveKind, ArchiveLimits } from "./vault-archive.ts";
export { archiveKindOf, readVaultArchive } from "./vault-archive.ts";
