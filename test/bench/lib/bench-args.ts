// A bench's command-line options: `--name value`, with a fallback when absent.

/** The value after `--name`, or the fallback. */
export function option(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? (args[i + 1] ?? fallback) : fallback;
}

/** A whole number option of at least `least` (1 unless said), refused with `usage` otherwise. */
export function wholeNumber(
  args: string[],
  name: string,
  fallback: number,
  { least = 1, usage = "" }: { least?: number; usage?: string } = {},
): number {
  const value = Number(option(args, name, String(fallback)));
  if (!Number.isInteger(value) || value < least) {
    const wanted = least === 1 ? "a positive integer" : `a whole number, ${least} or more`;
    throw new Error(`--${name} needs ${wanted}${usage === "" ? "" : `\n${usage}`}`);
  }
  return value;
}
