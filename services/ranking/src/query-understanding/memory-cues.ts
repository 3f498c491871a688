// What a question can be matched on in a memory beyond its words, derived once when the
// memory's text is projected (never per query): who speaks in it, if it is a line of a
// transcript, and the times it names, resolved against the memory's own time ("yesterday",
// written on 8 May 2023, is 7 May 2023). Its entities and its time are on the card already.
import type { MemoryDocument } from "@cairn/contracts";
import { speakerLabel, type TimeSpan, timeMentions } from "@cairn/text-analysis";

export type MemoryCues = {
  /** The speaker of a transcript line, as written (null: not such a line). */
  speaker: string | null;
  /** The spans of the times the text names. */
  times: TimeSpan[];
};

export const noCues: MemoryCues = { speaker: null, times: [] };

/** When a memory is about: the time it holds from, else when it was written. */
export function memoryTime(document: Pick<MemoryDocument, "validFrom" | "createdAt">): string {
  return document.validFrom ?? document.createdAt;
}

export function memoryCues(content: string, time: string): MemoryCues {
  const speaker = speakerLabel(content);
  // The speaker's label is not a time ("May: …").
  const body = speaker === null ? content : content.slice(content.indexOf(speaker) + speaker.length + 1);
  return {
    speaker,
    times: timeMentions(body, new Date(time)).map(({ start, end }) => ({ start, end })),
  };
}
