import {
  CairnError,
  type IngestCommand,
  type IngestCommandName,
  ingestCommandSchemas,
  limits,
} from "@cairn/contracts";
import type { z } from "zod";
import { findSecretInFields, stringFields } from "../domain/secrets.ts";

function pathOf(issue: z.core.$ZodIssue, key?: string): string {
  const parts = [...issue.path, ...(key === undefined ? [] : [key])];
  return parts.reduce<string>(
    (out, part) =>
      typeof part === "number" ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part),
    "",
  );
}

/**
 * Validates a command against its schema and turns zod's issues into Cairn errors a model can
 * act on: fields it does not know (`unknown_field`), values over a limit (`too_large`), and
 * anything else (`validation_failed`), each naming the field.
 */
export function parseCommand<N extends IngestCommandName>(name: N, payload: unknown): IngestCommand<N> {
  return parseAgainst(name, ingestCommandSchemas[name], payload) as IngestCommand<N>;
}

/** Validates a command against a schema, with the same error translation as `parseCommand`. */
export function parseAgainst<S extends z.ZodType>(name: string, schema: S, payload: unknown): z.infer<S> {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;

  const unknown = issues.flatMap((i) =>
    i.code === "unrecognized_keys" ? i.keys.map((k) => pathOf(i, k)) : [],
  );
  if (unknown.length > 0) {
    throw new CairnError("unknown_field", `${name} does not accept the field(s) ${unknown.join(", ")}`, {
      hint: "remove those fields; the command's schema lists what it accepts",
      details: { fields: unknown },
    });
  }

  const tooBig = issues.find((i) => i.code === "too_big");
  if (tooBig && tooBig.code === "too_big") {
    const field = pathOf(tooBig);
    const unit = tooBig.origin === "array" ? "items" : "characters";
    throw new CairnError("too_large", `${field} is over its limit of ${String(tooBig.maximum)} ${unit}`, {
      hint:
        field.endsWith("content") && tooBig.origin === "string"
          ? `keep one memory under ${limits.contentMaxChars} characters: store a summary, or split the topic into several slots`
          : `shorten ${field} to at most ${String(tooBig.maximum)} ${unit}`,
      details: { field, maximum: Number(tooBig.maximum), unit },
    });
  }

  const described = issues.slice(0, 5).map((i) => `${pathOf(i) || "(request)"}: ${i.message}`);
  throw new CairnError("validation_failed", `${name} is not valid: ${described.join("; ")}`, {
    hint: "fix the fields named and send the command again",
    details: { issues: issues.map((i) => ({ path: pathOf(i), code: i.code, message: i.message })) },
  });
}

const notScanned = new Set(["principal", "token", "correlationId", "idempotencyKey"]);

/**
 * Refuses a command that carries a credential in any of its text fields, before anything
 * reaches the log. The error names the field, the kind of secret and where it is, never
 * the secret itself.
 */
export function refuseSecrets(command: Record<string, unknown>): void {
  const fields = Object.entries(command)
    .filter(([key]) => !notScanned.has(key))
    .flatMap(([key, value]) => [...stringFields(value, key)]);
  const finding = findSecretInFields(fields);
  if (!finding) return;
  throw new CairnError(
    "secret_detected",
    `${finding.field} contains what looks like ${finding.description} (characters ${finding.start}–${finding.end}); nothing was stored`,
    {
      hint: "remove the secret, or refer to it by where it is kept (for example 'the deploy key in the team vault'), and write again",
      details: { field: finding.field, kind: finding.kind, start: finding.start, end: finding.end },
    },
  );
}
