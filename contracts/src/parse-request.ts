// How a request that does not match its schema is refused, the same on every surface (bus,
// REST, MCP): fields a schema does not know (`unknown_field`), values over a limit
// (`too_large`), and anything else (`validation_failed`), each naming the field. Text is
// text everywhere: a NUL character (U+0000) in any string of any request is refused by name
// (Postgres cannot store it, and no field means anything by it); other control characters
// are stored and matched safely (JSON escapes them, the read models fold them to spaces).
import type { z } from "zod";
import { CairnError } from "./errors.ts";
import { limits } from "./memory.ts";

/** A zod issue's path as a person writes it: `memory.tags[2]`. */
export function issuePath(issue: z.core.$ZodIssue, key?: string): string {
  const parts = [...issue.path, ...(key === undefined ? [] : [key])];
  return parts.reduce<string>(
    (out, part) =>
      typeof part === "number" ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part),
    "",
  );
}

/** The Cairn error for a request's validation issues (`what` names the request in the message). */
export function validationError(what: string, issues: readonly z.core.$ZodIssue[]): CairnError {
  const unknown = issues.flatMap((i) =>
    i.code === "unrecognized_keys" ? i.keys.map((k) => issuePath(i, k)) : [],
  );
  if (unknown.length > 0) {
    return new CairnError("unknown_field", `${what} does not accept the field(s) ${unknown.join(", ")}`, {
      hint: "remove those fields; the schema lists what it accepts",
      details: { fields: unknown },
    });
  }
  const tooBig = issues.find((i) => i.code === "too_big");
  if (tooBig && tooBig.code === "too_big") {
    const field = issuePath(tooBig);
    const unit = tooBig.origin === "array" ? "items" : "characters";
    return new CairnError("too_large", `${field} is over its limit of ${String(tooBig.maximum)} ${unit}`, {
      hint:
        field.endsWith("content") && tooBig.origin === "string"
          ? `keep one memory under ${limits.contentMaxChars} characters: store a summary, or split the topic into several slots`
          : `shorten ${field} to at most ${String(tooBig.maximum)} ${unit}`,
      details: { field, maximum: Number(tooBig.maximum), unit },
    });
  }
  const described = issues.slice(0, 5).map((i) => `${issuePath(i) || "(request)"}: ${i.message}`);
  return new CairnError("validation_failed", `${what} is not valid: ${described.join("; ")}`, {
    hint: "fix the fields named and send it again",
    details: { issues: issues.map((i) => ({ path: issuePath(i), code: i.code, message: i.message })) },
  });
}

export const nulMessage = "must not contain a NUL character (U+0000)";

/** Whether a string holds no NUL character (a zod refinement for fields that state it). */
export const hasNoNul = (value: string): boolean => !value.includes("\u0000");

/**
 * The first string inside a JSON-like value that holds a NUL character, with the keys and
 * indexes that lead to it (the path is only made for the one found: a request of hundreds of
 * candidates is walked on every call).
 */
function nulInside(value: unknown): { path: (string | number)[]; at: number } | undefined {
  if (typeof value === "string") {
    const at = value.indexOf("\u0000");
    return at === -1 ? undefined : { path: [], at };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = nulInside(value[i]);
      if (found) {
        found.path.unshift(i);
        return found;
      }
    }
  } else if (value !== null && typeof value === "object") {
    for (const key of Object.keys(value)) {
      const found = nulInside((value as Record<string, unknown>)[key]);
      if (found) {
        found.path.unshift(key);
        return found;
      }
    }
  }
  return undefined;
}

/** `memory.tags[2]`: keys joined by dots, indexes in brackets. */
function fieldWithNul(value: unknown): { path: string; at: number } | undefined {
  const found = nulInside(value);
  if (!found) return undefined;
  let path = "";
  for (const step of found.path) path += typeof step === "number" ? `[${step}]` : path ? `.${step}` : step;
  return { path, at: found.at };
}

/** Validates a request against its schema, refusing it with the error `validationError` gives. */
export function parseRequest<S extends z.ZodType>(what: string, schema: S, payload: unknown): z.infer<S> {
  const parsed = schema.safeParse(payload);
  if (!parsed.success) throw validationError(what, parsed.error.issues);
  const nul = fieldWithNul(parsed.data);
  if (nul) {
    const field = nul.path || "(request)";
    throw new CairnError("validation_failed", `${what} is not valid: ${field}: ${nulMessage}`, {
      hint: `remove the NUL character at position ${nul.at} of ${field} and send it again`,
      details: { issues: [{ path: nul.path, code: "nul_character", message: nulMessage, at: nul.at }] },
    });
  }
  return parsed.data;
}
