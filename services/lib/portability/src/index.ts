export { cairnExportRecord } from "./cairn-export-record.ts";
export type {
  CairnExportError,
  CairnExportHeader,
  CairnExportRecord,
  CairnExportVersion,
  MemoryStreamEventType,
  ParsedCairnExport,
} from "./cairn-jsonl.ts";
export {
  CairnExportHeaderSchema,
  CairnExportRecordSchema,
  CairnExportVersionSchema,
  cairnExportFormat,
  cairnExportLines,
  cairnExportVersion,
  encodeCairnExport,
  importCairnExport,
  memoryStreamEventTypes,
  parseCairnExport,
} from "./cairn-jsonl.ts";
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
export type { KeymemGraph } from "./keymem.ts";
export { importKeymem, KeymemGraphSchema } from "./keymem.ts";
export type { MarkdownFile } from "./markdown.ts";
export { exportMarkdownVault, fileStemForSlot, markdownFileNames, parseMarkdownVault } from "./markdown.ts";
export type { Mem0Memory } from "./mem0.ts";
export { importMem0, Mem0ExportSchema, Mem0MemorySchema } from "./mem0.ts";
export { importServerMemory, ServerMemoryEntitySchema, ServerMemoryRelationSchema } from "./server-memory.ts";
