import type { ComponentChildren } from "preact";

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** A time as the reader's locale writes it; the exact ISO time on hover and for machines. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>;
  const date = new Date(iso);
  return (
    <time dateTime={iso} title={iso}>
      {Number.isNaN(date.getTime()) ? iso : dateTime.format(date)}
    </time>
  );
}

export function Badge({ children, tone }: { children: ComponentChildren; tone?: string }) {
  return <span class={`badge${tone ? ` badge-${tone}` : ""}`}>{children}</span>;
}

export function TagList({ tags, label }: { tags: readonly string[]; label: string }) {
  if (tags.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="tag-list" aria-label={label}>
      {tags.map((t) => (
        <li key={t}>{t}</li>
      ))}
    </ul>
  );
}

/** A number with at most `digits` decimals (scores, factors). */
export function num(value: number | null | undefined, digits = 3): string {
  if (value === null || value === undefined) return "—";
  return Number.isInteger(value) ? String(value) : value.toFixed(digits).replace(/\.?0+$/, "");
}

/** Label / value rows. */
export function Facts({ rows }: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
