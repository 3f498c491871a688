export type { Author, MemoryFields, TestLog } from "./test-log.ts";
export {
  comparable,
  createTestLog,
  defaultAuthor,
  freshEventStream,
  memoryRecord,
} from "./test-log.ts";
