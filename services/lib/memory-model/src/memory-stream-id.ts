import { streamIdFor } from "@cairn/contracts";

const memoryStreamPrefix = "memory-";

/** The log stream of a memory (any tier): `memory-<id>`. */
export function memoryStreamId(memoryId: string): string {
  return streamIdFor("memory", memoryId);
}

/** The memory id of a memory stream, or undefined for any other stream. */
export function memoryIdOfStream(streamId: string): string | undefined {
  return streamId.startsWith(memoryStreamPrefix) ? streamId.slice(memoryStreamPrefix.length) : undefined;
}
