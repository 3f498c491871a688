import type { SearchExplanation } from "@cairn/contracts";
import { href } from "../router.ts";
import { num } from "./format.tsx";

/**
 * Why a result came back where it did (`explain=true`): the relevance parts, the episode
 * neighbour it borrowed from, the terms the query was widened with, and each ranking factor.
 * Folded by default: a `details` element opens with Enter or Space.
 */
export function Explanation({ explanation: e }: { explanation: SearchExplanation }) {
  const r = e.relevance;
  return (
    <details class="explanation">
      <summary>Why this result (score {num(e.score)})</summary>
      <div class="explanation-body">
        <section>
          <h3>Relevance {num(r.fused)}</h3>
          <ul>
            <li>
              Words (BM25):{" "}
              {r.lexical ? `rank ${r.lexical.rank}, score ${num(r.lexical.score)}` : "did not match"}
            </li>
            <li>
              Meaning (vectors):{" "}
              {r.vector ? `rank ${r.vector.rank}, similarity ${num(r.vector.score)}` : "did not match"}
            </li>
            <li>
              Query terms held: {r.coverage === null ? "—" : `${Math.round(r.coverage * 100)} %`}
              {r.belowFloor ? " (below the relevance floor: kept because it fits the question)" : ""}
            </li>
            <li>Vector weight: {num(r.vectorWeight)}</li>
          </ul>
        </section>
        <section>
          <h3>Episode</h3>
          {e.episode ? (
            <p>
              Boost {num(e.episode.boost)} from its neighbour{" "}
              <a href={href(["memories", e.episode.from])}>{e.episode.from.slice(0, 8)}</a>
            </p>
          ) : (
            <p class="muted">No neighbour's relevance.</p>
          )}
        </section>
        <section>
          <h3>Expansions</h3>
          <p>{e.expansions.length ? e.expansions.join(", ") : <span class="muted">none</span>}</p>
          {e.synonyms.length ? <p>Synonyms: {e.synonyms.join(", ")}</p> : null}
        </section>
        <section>
          <h3>Ranking factors</h3>
          {e.factors ? (
            <table class="compact">
              <tbody>
                {Object.entries(e.factors).map(([name, value]) => (
                  <tr key={name}>
                    <th scope="row">{name}</th>
                    <td>× {num(value)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p class="muted">Search order: ranking did not answer.</p>
          )}
          {e.signals ? (
            <p class="muted">
              {e.signals.recalls} recalls, {e.signals.reads} reads, {e.signals.useful} useful /{" "}
              {e.signals.notUseful} not; depth {num(e.signals.depth)}
            </p>
          ) : null}
        </section>
      </div>
    </details>
  );
}
