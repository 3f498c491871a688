export { evolveMemoryDocument, foldMemoryDocument, memoryFoldVersion } from "./evolve-memory-document.ts";
export { evolveStoredDocument } from "./evolve-stored-document.ts";
export { isLive } from "./is-live.ts";
export { entityKeyType, inferKeyType, keyTypeOf, matchesBySimilarity } from "./key-types.ts";
export type { MemoryEvent, MemoryEventType } from "./memory-events.ts";
export {
  initialStatus,
  isMemoryEvent,
  isMemoryEventType,
  memoryEventTypes,
  recordedEventType,
  revisedEventType,
} from "./memory-events.ts";
export { isMemoryFoldError, MemoryFoldError } from "./memory-fold-error.ts";
export { memoryIdOfStream, memoryStreamId } from "./memory-stream-id.ts";
export { type FloorOptions, floorQuestionFit, passesFloor, splitAtFloor } from "./relevance-floor.ts";
export { canReview, isReviewer, reviewRuleText } from "./review.ts";
export type { TenantSettingsChange } from "./tenant-settings.ts";
export { evolveTenantSettings, foldTenantSettings } from "./tenant-settings.ts";
export type { OwnedMemory } from "./visibility.ts";
export { canChange, canSee, canWriteScope } from "./visibility.ts";
