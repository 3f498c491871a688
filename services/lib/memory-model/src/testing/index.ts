export { storedEvent, testMeta } from "@cairn/contracts/testing";
export type { MemoryFields } from "./memory-event-builders.ts";
export { eventLine, memoryDocument, memoryRecord } from "./memory-event-builders.ts";
