import type { ComponentChildren } from "preact";

export const pageSize = 20;

/** The items of one page (1-based), and how many pages there are. */
export function pageOf<T>(items: readonly T[], page: number, size = pageSize): { items: T[]; pages: number } {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const current = Math.min(Math.max(1, page), pages);
  return { items: items.slice((current - 1) * size, current * size), pages };
}

/** `?page=` of a route: a positive integer, 1 when absent or not a number. */
export function pageParam(value: string | null): number {
  const page = Number(value);
  return Number.isInteger(page) && page > 0 ? page : 1;
}

/** A step through pages: a link, or (at an end) the same words, not focusable. */
export function PagerStep({
  target,
  label,
  children,
}: {
  target: string | null;
  label: string;
  children: ComponentChildren;
}) {
  return target === null ? (
    <span class="pager-step" aria-disabled="true">
      {children}
    </span>
  ) : (
    <a class="pager-step" href={target} aria-label={label}>
      {children}
    </a>
  );
}

/**
 * The bar above a list: what it holds and the steps through it. Its height is fixed and it
 * sits above the list, so a page of a different length moves nothing.
 */
export function PagerBar({ summary, children }: { summary: string; children: ComponentChildren }) {
  return (
    <nav class="pager" aria-label="Pages">
      <span class="pager-summary">{summary}</span>
      {children}
    </nav>
  );
}

/** Previous / next through a list held in the console, a page at a time. */
export function Pager({
  page,
  pages,
  hrefOf,
  summary,
}: {
  page: number;
  pages: number;
  hrefOf: (page: number) => string;
  summary: string;
}) {
  const current = Math.min(Math.max(1, page), pages);
  return (
    <PagerBar summary={summary}>
      <PagerStep target={current > 1 ? hrefOf(current - 1) : null} label="Previous page">
        ‹ Previous
      </PagerStep>
      <span class="pager-position">
        Page {current} of {pages}
      </span>
      <PagerStep target={current < pages ? hrefOf(current + 1) : null} label="Next page">
        Next ›
      </PagerStep>
    </PagerBar>
  );
}
