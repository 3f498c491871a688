// The terms a memory is found and scored by, the same for the lexical index (search) and for
// relevance (ranking): its content's, with the title's in front unless the title is just the
// content's beginning (ingest derives it from the first line, and its words would count
// twice), then the words an agent named it by: slot, aliases and keys.
import { analyzeText } from "./analyze-text.ts";

export type TermSource = {
  title: string;
  content: string;
  slot?: string | undefined;
  aliases?: readonly string[] | undefined;
  keys?: readonly string[] | undefined;
};

/** `deploy_process/prod` is named by "deploy process prod". */
function slotWords(slot: string): string {
  return slot.replace(/[_./:-]+/g, " ");
}

export function memoryTerms(memory: TermSource): string[] {
  const body = analyzeText(memory.content);
  const head = analyzeText(memory.title);
  const isPrefix = head.length <= body.length && head.every((t, i) => body[i] === t);
  const names = [memory.slot ? slotWords(memory.slot) : "", ...(memory.aliases ?? []), ...(memory.keys ?? [])]
    .filter((n) => n !== "")
    .flatMap(analyzeText);
  return [...(isPrefix ? [] : head), ...body, ...names];
}
