export type { MemoryFields } from "./memory-event-builders.ts";
export { eventLine, memoryRecord, storedEvent, testMeta } from "./memory-event-builders.ts";
