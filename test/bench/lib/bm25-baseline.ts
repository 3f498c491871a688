// The plain BM25 the retrieval benchmark compares against, computed in-process: k1 1.2,
// b 0.75, lowercase alphanumeric tokens, English stop words removed, no stemming.
import { englishStopWords as nltkStopWords } from "@cairn/text-analysis";

/**
 * NLTK's English stop words (179), the list most BM25 baselines use, which is also the list
 * Cairn's own analysis drops. With it, lowercase `[a-z0-9]+` tokens and Lucene's idf this
 * gives recall@10 0.573 on locomo-dev (the README states 0.576; the rest is tokenisation and
 * tie order).
 */
export const englishStopWords: ReadonlySet<string> = nltkStopWords;

export function bm25Tokens(text: string, stopWords: ReadonlySet<string> = englishStopWords): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((t) => !stopWords.has(t));
}

export type Bm25Options = { k1?: number; b?: number; stopWords?: ReadonlySet<string> };

/** An Okapi BM25 index over a fixed set of documents (Lucene-style idf, never negative). */
export class Bm25Index {
  readonly #ids: string[];
  readonly #tf: Map<string, number>[];
  readonly #lengths: number[];
  readonly #df = new Map<string, number>();
  readonly #avgLength: number;
  readonly #k1: number;
  readonly #b: number;
  readonly #stopWords: ReadonlySet<string>;

  constructor(docs: { id: string; text: string }[], options: Bm25Options = {}) {
    this.#k1 = options.k1 ?? 1.2;
    this.#b = options.b ?? 0.75;
    this.#stopWords = options.stopWords ?? englishStopWords;
    this.#ids = docs.map((d) => d.id);
    this.#tf = docs.map((d) => {
      const tf = new Map<string, number>();
      for (const t of bm25Tokens(d.text, this.#stopWords)) tf.set(t, (tf.get(t) ?? 0) + 1);
      return tf;
    });
    this.#lengths = this.#tf.map((tf) => [...tf.values()].reduce((a, b) => a + b, 0));
    for (const tf of this.#tf) for (const t of tf.keys()) this.#df.set(t, (this.#df.get(t) ?? 0) + 1);
    this.#avgLength = this.#lengths.reduce((a, b) => a + b, 0) / Math.max(1, docs.length);
  }

  search(query: string, k: number): string[] {
    const n = this.#ids.length;
    const terms = [...new Set(bm25Tokens(query, this.#stopWords))];
    const scored: { id: string; score: number }[] = [];
    this.#tf.forEach((tf, i) => {
      let score = 0;
      for (const t of terms) {
        const f = tf.get(t);
        if (!f) continue;
        const df = this.#df.get(t) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        const norm = this.#k1 * (1 - this.#b + (this.#b * (this.#lengths[i] ?? 0)) / this.#avgLength);
        score += (idf * f * (this.#k1 + 1)) / (f + norm);
      }
      if (score > 0) scored.push({ id: this.#ids[i] as string, score });
    });
    scored.sort((a, b) => b.score - a.score);
    return scored.slice(0, k).map((s) => s.id);
  }
}
