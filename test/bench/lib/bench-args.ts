// A bench's command-line options: `--name value` or `--name=value`, with a fallback when absent.
// Every bench reads its options here, so each refuses a bad value the same way.

/** A bad option: `pnpm bench` prints its message alone and exits with 2. */
export class BenchOptionError extends Error {
  override readonly name = "BenchOptionError";
}

/** What a bench reads: its usage line, the options that take a value and the flags (`--json` always). */
export type BenchOptions = { usage: string; values: readonly string[]; flags?: readonly string[] };

/**
 * Checks a bench's arguments before anything starts. `--help` prints the usage and answers
 * false (the bench stops there); an option the bench does not read, a flag given a value and an
 * option without its value are refused by name, with the usage.
 */
export function checkArgs(args: readonly string[], options: BenchOptions): boolean {
  if (args.includes("--help")) {
    console.log(options.usage);
    return false;
  }
  const flags = new Set(["json", ...(options.flags ?? [])]);
  const values = new Set(options.values);
  const refuse = (problem: string): never => {
    throw new BenchOptionError(`${problem}\n${options.usage}`);
  };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (!arg.startsWith("--")) refuse(`unexpected argument ${JSON.stringify(arg)}`);
    const equals = arg.indexOf("=");
    const name = arg.slice(2, equals < 0 ? undefined : equals);
    if (flags.has(name)) {
      if (equals >= 0) refuse(`--${name} takes no value`);
    } else if (!values.has(name)) {
      refuse(`unknown option --${name}`);
    } else if (equals < 0) {
      const next = args[i + 1];
      if (next === undefined || next.startsWith("--")) refuse(`--${name} needs a value`);
      i += 1;
    }
  }
  return true;
}

/** The value of `--name` (after it, or after `=`), or undefined when it is not given. */
export function optional(args: readonly string[], name: string): string | undefined {
  const flag = `--${name}`;
  const i = args.indexOf(flag);
  if (i >= 0) {
    const value = args[i + 1];
    if (value === undefined || value.startsWith("--")) throw new BenchOptionError(`${flag} needs a value`);
    return value;
  }
  return args.find((a) => a.startsWith(`${flag}=`))?.slice(flag.length + 1);
}

/** The value of `--name`, or the fallback. */
export function option(args: readonly string[], name: string, fallback: string): string {
  return optional(args, name) ?? fallback;
}

type NumberRules = { least?: number; usage?: string };

function refuse(name: string, wanted: string, usage: string): never {
  throw new BenchOptionError(`--${name} needs ${wanted}${usage === "" ? "" : `\n${usage}`}`);
}

/** A whole number option of at least `least` (1 unless said), refused with `usage` otherwise. */
export function wholeNumber(
  args: readonly string[],
  name: string,
  fallback: number,
  { least = 1, usage = "" }: NumberRules = {},
): number {
  const value = Number(option(args, name, String(fallback)));
  if (!Number.isInteger(value) || value < least) {
    refuse(name, least === 1 ? "a positive integer" : `a whole number, ${least} or more`, usage);
  }
  return value;
}

/** A number above 0 (seconds, a weight), refused with `usage` otherwise. */
export function positiveNumber(
  args: readonly string[],
  name: string,
  fallback: number,
  { usage = "" }: { usage?: string } = {},
): number {
  const value = Number(option(args, name, String(fallback)));
  if (!Number.isFinite(value) || value <= 0) refuse(name, "a positive number", usage);
  return value;
}

/** A comma-separated list of positive integers (`--sizes 10000,100000`). */
export function wholeNumbers(
  args: readonly string[],
  name: string,
  fallback: readonly number[],
  { usage = "" }: { usage?: string } = {},
): number[] {
  const values = option(args, name, fallback.join(","))
    .split(",")
    .map((v) => (v.trim() === "" ? Number.NaN : Number(v.trim())));
  if (values.some((v) => !Number.isInteger(v) || v <= 0)) {
    refuse(name, `positive integers separated by commas, e.g. ${fallback.join(",")}`, usage);
  }
  return values;
}
