// How a request that does not match its schema is refused, the same on every surface (bus,
// REST, MCP): fields a schema does not know (`unknown_field`), values over a limit
// (`too_large`), and anything else (`validation_failed`), each naming the field.
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

/** Validates a request against its schema, refusing it with the error `validationError` gives. */
export function parseRequest<S extends z.ZodType>(what: string, schema: S, payload: unknown): z.infer<S> {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return parsed.data;
  throw validationError(what, parsed.error.issues);
}
