// Evidence recall@k, hit@k and MRR of a ranked list against a question's evidence turns. Each
// ranked item stands for one or more turns: a memory holds every turn whose content it holds
// (real conversations repeat a turn word for word, and one memory keeps it once).

export type QuestionOutcome = {
  /** Best first; each item the turns one retrieved memory stands for. */
  ranked: readonly (readonly string[])[];
  evidence: readonly string[];
  category?: number;
};

/** The turns the top `k` items stand for. */
function turnsIn(outcome: QuestionOutcome, k: number): Set<string> {
  return new Set(outcome.ranked.slice(0, k).flat());
}

export function recallAt(outcome: QuestionOutcome, k: number): number {
  const evidence = new Set(outcome.evidence);
  if (evidence.size === 0) return 0;
  const top = turnsIn(outcome, k);
  let found = 0;
  for (const e of evidence) if (top.has(e)) found += 1;
  return found / evidence.size;
}

export function hitAt(outcome: QuestionOutcome, k: number): number {
  const top = turnsIn(outcome, k);
  return outcome.evidence.some((e) => top.has(e)) ? 1 : 0;
}

/** Reciprocal rank of the first item holding an evidence turn (0 when none is ranked). */
export function reciprocalRank(outcome: QuestionOutcome): number {
  const index = outcome.ranked.findIndex((turns) => turns.some((t) => outcome.evidence.includes(t)));
  return index < 0 ? 0 : 1 / (index + 1);
}

export type RetrievalFigures = {
  questions: number;
  recall5: number;
  recall10: number;
  recall20: number;
  hit10: number;
  mrr: number;
};

const mean = (values: number[]) =>
  values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;

export function retrievalFigures(outcomes: readonly QuestionOutcome[]): RetrievalFigures {
  return {
    questions: outcomes.length,
    recall5: mean(outcomes.map((o) => recallAt(o, 5))),
    recall10: mean(outcomes.map((o) => recallAt(o, 10))),
    recall20: mean(outcomes.map((o) => recallAt(o, 20))),
    hit10: mean(outcomes.map((o) => hitAt(o, 10))),
    mrr: mean(outcomes.map(reciprocalRank)),
  };
}

/** LoCoMo's question categories (README of the benchmark data). */
export const categoryNames: Record<number, string> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
};

/** The figures of each category the outcomes have, by name. */
export function figuresPerCategory(outcomes: readonly QuestionOutcome[]): Record<string, RetrievalFigures> {
  const out: Record<string, RetrievalFigures> = {};
  for (const [category, name] of Object.entries(categoryNames)) {
    const mine = outcomes.filter((o) => o.category === Number(category));
    if (mine.length > 0) out[name] = retrievalFigures(mine);
  }
  return out;
}
