// Tokens for destructive commands. A dry run returns a plan (which streams, what action, at
// which version) and a token: an HMAC over that plan, the command's own parameters, who
// asked, and an expiry. Executing recomputes the plan from the current state; the token is
// accepted only if it was made for exactly that plan, so a memory changed since the dry
// run (a new version) refuses it.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { CairnError } from "@cairn/contracts";

export type PlanItem = { id: string; action: string; version: number; slot: string };

export type PlanBinding = {
  command: string;
  tenant: string;
  agent: string;
  plan: PlanItem[];
  /** Hash of the command's parameters other than dryRun, token and bookkeeping. */
  parameters: string;
};

type TokenBody = PlanBinding & { expiresAt: number };

/** Canonical JSON: object keys sorted, so equal values always hash the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export function parametersDigest(parameters: Record<string, unknown>): string {
  return createHash("sha256").update(canonical(parameters)).digest("base64url");
}

function sign(secret: Uint8Array, body: string): string {
  return createHmac("sha256", secret).update(body).digest("base64url");
}

export function issuePlanToken(secret: Uint8Array, binding: PlanBinding, expiresAt: number): string {
  const body = Buffer.from(canonical({ ...binding, expiresAt } satisfies TokenBody)).toString("base64url");
  return `${body}.${sign(secret, body)}`;
}

function invalid(message: string, hint: string, details?: Record<string, unknown>): CairnError {
  return new CairnError("token_invalid", message, { hint, details });
}

const dryRunAgain = "run the same command with dryRun: true again and execute with the new token";

/** Accepts the token only for this very plan, unexpired and signed with our secret; otherwise `token_invalid`. */
export function verifyPlanToken(secret: Uint8Array, token: string, expected: PlanBinding, now: number): void {
  const [body, signature, extra] = token.split(".");
  if (!body || !signature || extra !== undefined) throw invalid("the token is malformed", dryRunAgain);
  const want = Buffer.from(sign(secret, body));
  const got = Buffer.from(signature);
  if (want.length !== got.length || !timingSafeEqual(want, got)) {
    throw invalid("the token was not issued by this deployment for this plan", dryRunAgain);
  }
  let parsed: TokenBody;
  try {
    parsed = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as TokenBody;
  } catch (cause) {
    throw new CairnError("token_invalid", "the token is malformed", { hint: dryRunAgain, cause });
  }
  if (parsed.expiresAt < now) {
    throw invalid("the token has expired", dryRunAgain, {
      expiresAt: new Date(parsed.expiresAt).toISOString(),
    });
  }
  if (
    parsed.command !== expected.command ||
    parsed.tenant !== expected.tenant ||
    parsed.agent !== expected.agent
  ) {
    throw invalid("the token was issued for another command or caller", dryRunAgain);
  }
  if (parsed.parameters !== expected.parameters) {
    throw invalid("the command's parameters differ from the dry run's", dryRunAgain);
  }
  if (canonical(parsed.plan) !== canonical(expected.plan)) {
    const changed = expected.plan
      .filter((item) => {
        const seen = parsed.plan.find((p) => p.id === item.id);
        return !seen || seen.version !== item.version;
      })
      .map((item) => ({
        id: item.id,
        versionAtDryRun: parsed.plan.find((p) => p.id === item.id)?.version ?? null,
        versionNow: item.version,
      }));
    throw invalid("the plan changed since the dry run (a memory it covers has a new version)", dryRunAgain, {
      changed,
    });
  }
}
