import { describe, expect, test } from "vitest";
import { findSecret, findSecretInFields, stringFields } from "./secrets.ts";

// Built at run time so this file itself holds no credential-shaped literal.
const repeat = (s: string, n: number) => s.repeat(Math.ceil(n / s.length)).slice(0, n);

const secrets: [string, string][] = [
  ["private_key", "-----BEGIN RSA PRIVATE KEY-----\nMIIE..."],
  ["private_key", "-----BEGIN OPENSSH PRIVATE KEY-----"],
  ["private_key", "-----BEGIN PRIVATE KEY-----"],
  ["aws_access_key", `AKIA${repeat("QWERTYUIOP2345", 16)}`],
  ["aws_access_key", `ASIA${repeat("ZXCVBNM234567", 16)}`],
  ["github_token", `ghp_${repeat("aB3dE5gH7j", 36)}`],
  ["github_token", `github_pat_${repeat("11ABCDEFG0_", 82)}`],
  ["gitlab_token", `glpat-${repeat("xY1_zW2-", 20)}`],
  ["slack_token", `xoxb-${repeat("1234567890-", 30)}`],
  ["slack_token", "https://hooks.slack.com/services/T0001/B0002/abcdefXYZ123"],
  ["openai_key", `sk-proj-${repeat("Ab1_Cd2-Ef3", 60)}`],
  ["openai_key", `sk-${repeat("a1B2", 20)}T3BlbkFJ${repeat("c3D4", 20)}`],
  ["openai_key", `sk-${repeat("Zq9Xw8", 48)}`],
  ["anthropic_key", `sk-ant-api03-${repeat("Qw3_rT5-yU", 93)}`],
  ["stripe_key", `sk_live_${repeat("4eC39HqLyjWDarjtT1zdp7dc", 24)}`],
  ["stripe_key", `rk_live_${repeat("51H8", 30)}`],
  [
    "jwt",
    `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${repeat("dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", 43)}`,
  ],
  ["connection_string_password", "postgres://app:s3cr3t-Pa55@db.internal:5432/app"],
  ["connection_string_password", "mongodb+srv://admin:hunter2@cluster0.example.net/test"],
  ["connection_string_password", "redis://default:Zx8!kq@cache:6379"],
  ["connection_string_password", "redis://:Zx8kq2@cache:6379/0"],
  ["connection_string_password", "https://deploy:9f8e7d6c5b4a@git.example.com/team/repo.git"],
];

describe("secret detection", () => {
  test.each(secrets)("finds %s", (kind, secret) => {
    const text = `before ${secret} after`;
    expect(findSecret(text)).toEqual({
      kind,
      description: expect.any(String),
      start: 7,
      end: expect.any(Number),
    });
  });

  test.each([
    "We rotate the AWS keys monthly; the key id starts with AKIA.",
    "postgres://app@db.internal:5432/app (no password)",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal environment placeholder, as in a config file
    "postgres://app:${DB_PASSWORD}@db:5432/app",
    "postgres://user:<password>@localhost/db",
    "mysql://root:****@localhost/db",
    "https://user:password@example.com is the documented form.",
    "Email me at ops@example.com or see https://example.com:8443/path.",
    "Use sk-learn style names like sk-some-feature-flag.",
    "The ticket GH-1234 and the branch ghp-fix are fine.",
    "A UUID 550e8400-e29b-41d4-a716-446655440000 is not a secret.",
    "eyJ alone is just a prefix.",
    "Keys: `apiKey`, `api_key`, process.env.OPENAI_API_KEY.",
  ])("leaves ordinary text alone: %s", (text) => {
    expect(findSecret(text)).toBeUndefined();
  });

  test("reports the first secret of the first field that has one, by path", () => {
    const command = { memory: { slot: "creds", tags: ["ok", `glpat-${"a".repeat(20)}`], content: "clean" } };
    expect(findSecretInFields(stringFields(command))).toMatchObject({
      field: "memory.tags[1]",
      kind: "gitlab_token",
    });
  });
});
