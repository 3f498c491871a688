export { refusalOf } from "./refusal-of.ts";
export { storedEvent, testMeta } from "./stored-event.ts";
