// YAML front matter: a `---` line at the very start of a file, YAML, and a closing `---` (or
// `...`) line. Parsed with the YAML 1.2 core schema, so dates stay strings and nothing in the
// file can make the parser build anything but plain data.
import { parse, stringify } from "yaml";

export type FrontMatter = {
  /** The mapping, or `null` when the file has none (or it could not be read; see `error`). */
  data: Record<string, unknown> | null;
  body: string;
  error?: string;
};

/** Splits a file (line ends already `\n`) into its front matter and its body. */
export function splitFrontMatter(text: string): FrontMatter {
  if (!/^---[ \t]*\n/.test(text)) return { data: null, body: text };
  const close = /^(?:---|\.\.\.)[ \t]*$/m;
  const rest = text.slice(text.indexOf("\n") + 1);
  const end = close.exec(rest);
  if (!end) return { data: null, body: text };
  const yamlText = rest.slice(0, end.index);
  const afterClose = rest.slice(end.index + end[0].length);
  const body = afterClose.startsWith("\n") ? afterClose.slice(1) : afterClose;
  try {
    const data: unknown = parse(yamlText, { schema: "core", uniqueKeys: true, maxAliasCount: 100 });
    if (data === null || data === undefined) return { data: {}, body };
    if (typeof data !== "object" || Array.isArray(data)) {
      return { data: null, body, error: "the front matter is not a mapping of fields" };
    }
    return { data: data as Record<string, unknown>, body };
  } catch (error) {
    const message = (error as Error).message.split("\n")[0] ?? "";
    return { data: null, body, error: `the front matter is not valid YAML (${message})` };
  }
}

/** Front matter for a file: fields in the given order, no line folding. */
export function frontMatterText(fields: Record<string, unknown>): string {
  return `---\n${stringify(fields, { lineWidth: 0, schema: "core" })}---\n`;
}
