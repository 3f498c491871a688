// Reading what Prometheus reads: the text exposition of a `/metrics` endpoint, and the metric
// names a dashboard's PromQL refers to.

export type Sample = { name: string; labels: Record<string, string>; value: number };

/** The samples of a Prometheus text exposition (comments and blank lines skipped). */
export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[3] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] as string] = (pair[2] as string).replace(/\\(.)/g, "$1");
    }
    samples.push({ name: match[1] as string, labels, value: Number(match[4]) });
  }
  return samples;
}

/** The sum of a series' samples whose labels include `where`. */
export function total(samples: readonly Sample[], name: string, where: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

const promqlKeywords = new Set([
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "bool",
  "and",
  "or",
  "unless",
  "offset",
  "inf",
  "nan",
]);

/**
 * Metric names in a PromQL expression: identifiers left after dropping strings, label
 * matchers, range/subquery brackets and grouping label lists, that are not functions,
 * keywords or numbers. Enough for dashboard queries; not a full PromQL parser.
 */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, " ")
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, " ");
  const names: string[] = [];
  for (const match of stripped.matchAll(/(?<![\w$.:])[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const name = match[0];
    const rest = stripped.slice((match.index ?? 0) + name.length);
    if (/^\s*\(/.test(rest)) continue;
    if (promqlKeywords.has(name.toLowerCase())) continue;
    names.push(name);
  }
  return names;
}

/** Every PromQL expression of a Grafana dashboard's panels (rows' panels included). */
export function dashboardExpressions(dashboard: unknown): { panel: string; expr: string }[] {
  const out: { panel: string; expr: string }[] = [];
  const visit = (panels: unknown) => {
    for (const panel of Array.isArray(panels) ? panels : []) {
      const p = panel as { title?: unknown; targets?: unknown; panels?: unknown };
      for (const target of Array.isArray(p.targets) ? p.targets : []) {
        const expr = (target as { expr?: unknown }).expr;
        if (typeof expr === "string") out.push({ panel: String(p.title), expr });
      }
      visit(p.panels);
    }
  };
  visit((dashboard as { panels?: unknown }).panels);
  return out;
}
