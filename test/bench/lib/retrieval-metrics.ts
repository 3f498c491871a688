/** Evidence recall@k, hit@k and MRR of ranked turn ids against a question's evidence turns. */

export type QuestionOutcome = { ranked: string[]; evidence: string[] };

export function recallAt(outcome: QuestionOutcome, k: number): number {
  const top = new Set(outcome.ranked.slice(0, k));
  const evidence = new Set(outcome.evidence);
  if (evidence.size === 0) return 0;
  let found = 0;
  for (const e of evidence) if (top.has(e)) found += 1;
  return found / evidence.size;
}

export function hitAt(outcome: QuestionOutcome, k: number): number {
  return outcome.ranked.slice(0, k).some((id) => outcome.evidence.includes(id)) ? 1 : 0;
}

/** Reciprocal rank of the first evidence turn (0 when none is ranked). */
export function reciprocalRank(outcome: QuestionOutcome): number {
  const index = outcome.ranked.findIndex((id) => outcome.evidence.includes(id));
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

export function retrievalFigures(outcomes: QuestionOutcome[]): RetrievalFigures {
  return {
    questions: outcomes.length,
    recall5: mean(outcomes.map((o) => recallAt(o, 5))),
    recall10: mean(outcomes.map((o) => recallAt(o, 10))),
    recall20: mean(outcomes.map((o) => recallAt(o, 20))),
    hit10: mean(outcomes.map((o) => hitAt(o, 10))),
    mrr: mean(outcomes.map(reciprocalRank)),
  };
}
