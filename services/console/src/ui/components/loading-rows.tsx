/**
 * Placeholders in the shape of the rows to come, each as tall as a row, so the page keeps its
 * layout when the data arrives.
 */
export function LoadingRows({ rows, kind = "row" }: { rows: number; kind?: "row" | "card" | "block" }) {
  return (
    <div class="loading" aria-busy="true">
      <span class="visually-hidden" role="status">
        Loading…
      </span>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} class={`placeholder placeholder-${kind}`} aria-hidden="true" />
      ))}
    </div>
  );
}
