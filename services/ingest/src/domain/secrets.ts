// High-confidence secret detection: only patterns that are almost never anything but a
// credential (a provider's key prefix and length, a private key block, a JWT, a connection
// string with a real-looking password). A false positive blocks an honest write, so no
// entropy guessing. What is reported never contains the secret itself.

export type SecretKind =
  | "private_key"
  | "aws_access_key"
  | "github_token"
  | "gitlab_token"
  | "slack_token"
  | "openai_key"
  | "anthropic_key"
  | "stripe_key"
  | "jwt"
  | "connection_string_password";

export type SecretFinding = { kind: SecretKind; description: string; start: number; end: number };

type Detector = {
  kind: SecretKind;
  description: string;
  pattern: RegExp;
  accept?: (m: RegExpExecArray) => boolean;
};

// Placeholders people write in documentation instead of a password.
const placeholderPassword =
  /^(?:\*+|x+|\.{3}|…|<[^>]*>|\{[^}]*\}|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%\(?[A-Za-z_]*\)?s?|password|passwd|pass|pwd|secret|changeme|your[-_]?password|redacted|hidden)$/i;

const detectors: Detector[] = [
  {
    kind: "private_key",
    description: "a private key block",
    pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g,
  },
  {
    kind: "aws_access_key",
    description: "an AWS access key id",
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g,
  },
  {
    kind: "github_token",
    description: "a GitHub token",
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{60,255})\b/g,
  },
  { kind: "gitlab_token", description: "a GitLab token", pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  {
    kind: "slack_token",
    description: "a Slack token or webhook",
    pattern:
      /\bxox[bpars]-[A-Za-z0-9-]{10,}|https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]+/g,
  },
  {
    kind: "anthropic_key",
    description: "an Anthropic API key",
    pattern: /\bsk-ant-(?:api|admin|sid)\d{2}-[A-Za-z0-9_-]{40,}/g,
  },
  {
    kind: "openai_key",
    description: "an OpenAI API key",
    // Project, service-account and admin keys; classic keys carry the "T3BlbkFJ" marker or are
    // exactly 48 alphanumerics after "sk-".
    pattern:
      /\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b|\bsk-[A-Za-z0-9]{48}\b/g,
  },
  { kind: "stripe_key", description: "a Stripe live key", pattern: /\b(?:sk|rk)_live_[A-Za-z0-9]{20,}\b/g },
  {
    kind: "jwt",
    description: "a JSON Web Token",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g,
  },
  {
    kind: "connection_string_password",
    description: "a connection string with a password",
    pattern:
      /\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|oracle|clickhouse|nats|ftp|sftp|smtps?|ldaps?|https?|git)(?:\+[a-z0-9]+)?:\/\/([^\s:/@'"]*):([^\s@/'"]+)@[^\s/'"]+/gi,
    accept: (m) => !placeholderPassword.test(m[2] ?? ""),
  },
];

/** The first high-confidence secret in `text`, or undefined. */
export function findSecret(text: string): SecretFinding | undefined {
  let first: SecretFinding | undefined;
  for (const detector of detectors) {
    detector.pattern.lastIndex = 0;
    for (let m = detector.pattern.exec(text); m !== null; m = detector.pattern.exec(text)) {
      if (detector.accept && !detector.accept(m)) continue;
      if (!first || m.index < first.start) {
        first = {
          kind: detector.kind,
          description: detector.description,
          start: m.index,
          end: m.index + m[0].length,
        };
      }
      break;
    }
  }
  return first;
}

/** The first secret in any of the named text fields (field names like `memory.content`, `changes.tags[2]`). */
export function findSecretInFields(
  fields: Iterable<readonly [string, string]>,
): (SecretFinding & { field: string }) | undefined {
  for (const [field, value] of fields) {
    const finding = findSecret(value);
    if (finding) return { ...finding, field };
  }
  return undefined;
}

/** Every string inside a JSON-like value with its path, for scanning a whole command. */
export function* stringFields(value: unknown, path = ""): Generator<readonly [string, string]> {
  if (typeof value === "string") {
    yield [path, value];
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* stringFields(item, `${path}[${i}]`);
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) yield* stringFields(item, path ? `${path}.${key}` : key);
  }
}
