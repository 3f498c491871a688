// The summary used when no chat model is configured (and when one fails): the sentences that
// cover the group's topic words best, chosen greedily (the sentence adding the most weight of
// words not yet covered first, a word weighing as many memories as use it), until no sentence
// adds a word; then put back in the order the memories had them. A sentence that says nothing
// new is left out, a fact only one member states is kept: consolidating must not lose facts.
import { distinctTopicWords, sentences, topicWords } from "../text/text-features.ts";
import type { Summarizer, SummaryInput } from "./summarizer.ts";

/** Topic words weighted by how many of the group's memories use them. */
function groupWeights(input: SummaryInput): Map<string, number> {
  const weights = new Map<string, number>();
  for (const m of input.memories) {
    for (const w of new Set(topicWords(`${m.title}\n${m.content}`)))
      weights.set(w, (weights.get(w) ?? 0) + 1);
  }
  return weights;
}

export function extractiveSummary(input: SummaryInput): { title: string; content: string } {
  const weights = groupWeights(input);
  const candidates = input.memories.flatMap((m, memory) =>
    sentences(m.content).map((text, index) => ({
      text,
      memory,
      index,
      words: new Set(topicWords(text)),
    })),
  );
  const seen = new Set<string>();
  const unique = candidates.filter((c) => {
    const key = [...c.words].sort().join(" ");
    if (key === "" || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const covered = new Set<string>();
  const chosen: typeof unique = [];
  let length = 0;
  for (;;) {
    let best: (typeof unique)[number] | undefined;
    let bestGain = 0;
    for (const c of unique) {
      if (chosen.includes(c)) continue;
      let gain = 0;
      for (const w of c.words) if (!covered.has(w)) gain += weights.get(w) ?? 0;
      if (gain > bestGain) {
        best = c;
        bestGain = gain;
      }
    }
    if (!best || length + best.text.length + 1 > input.maxChars) break;
    chosen.push(best);
    length += best.text.length + 1;
    for (const w of best.words) covered.add(w);
  }
  chosen.sort((a, b) => a.memory - b.memory || a.index - b.index);
  const top = [...weights]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 5)
    .map(([w]) => w);
  const titles = input.memories.map((m) => m.title).filter((t) => t.trim() !== "");
  const sharedTitle = distinctTopicWords(titles.join(" "), 6);
  const title = `Consolidated: ${(sharedTitle.length > 0 ? sharedTitle : top).slice(0, 5).join(", ")}`;
  return { title: title.slice(0, 200), content: chosen.map((c) => c.text).join(" ") };
}

export const extractiveSummarizer: Summarizer = {
  name: "extractive",
  async summarize(input) {
    return { ...extractiveSummary(input), summarizer: "extractive" };
  },
};
