import { describe, expect, it } from "vitest";
import { fakeCredentials, lookAlikes, seededRandom } from "./secret-corpus.ts";
import { findSecret, findSecretInFields, secretRules, stringFields } from "./secrets.ts";

const corpus = fakeCredentials(seededRandom(20_240_601));
const kinds = new Set(secretRules.map((rule) => rule.kind));

describe("secret detection", () => {
  it("has a fake credential for every rule, of at least 60 kinds", () => {
    expect(new Set(corpus.map((c) => c.kind))).toEqual(kinds);
    expect(kinds.size).toBeGreaterThanOrEqual(60);
    expect(kinds.size).toBe(secretRules.length);
  });

  it.each(corpus.map((c) => [c.kind, c] as const))("finds %s with its position", (kind, { text, secret }) => {
    const start = text.indexOf(secret);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(findSecret(text)).toEqual({
      kind,
      description: expect.any(String),
      start,
      end: start + secret.length,
    });
  });

  it.each(lookAlikes.map((l) => [l.name, l.text] as const))("stores %s", (_, text) => {
    expect(findSecret(text)).toBeUndefined();
  });

  it("reports the kind, the field and the position, never the value", () => {
    for (const { text, secret } of corpus) {
      const finding = findSecretInFields(stringFields({ memory: { slot: "notes", content: text } }));
      expect(finding?.field).toBe("memory.content");
      expect(Object.keys(finding ?? {}).sort()).toEqual(["description", "end", "field", "kind", "start"]);
      expect(JSON.stringify(finding)).not.toContain(secret);
    }
  });

  it("keeps kinds that refusals already carry", () => {
    expect(findSecret("leaked xoxb-1234567890-abcdef today")?.kind).toBe("slack_token");
    expect(findSecret(`leaked ghp_${"x1".repeat(18)}`)).toMatchObject({
      kind: "github_token",
      start: 7,
      end: 47,
    });
    expect(findSecret("token sk_live_abcdefghijklmnopqrstuvwx")?.kind).toBe("stripe_key");
    expect(findSecret("Use this: -----BEGIN OPENSSH PRIVATE KEY----- now")?.kind).toBe("private_key");
  });

  it("finds the earliest of several secrets, whatever the rule order", () => {
    const late = corpus.find((c) => c.kind === "generic_secret")!;
    const early = corpus.find((c) => c.kind === "aws_access_key")!;
    const text = `${early.secret} and then ${late.text}`;
    expect(findSecret(text)).toMatchObject({ kind: "aws_access_key", start: 0 });
  });

  it("skips a value the tenant allow-listed, exactly or by pattern, and nothing else", () => {
    const github = corpus.find((c) => c.kind === "github_token")!;
    const npm = corpus.find((c) => c.kind === "npm_token")!;
    expect(findSecret(github.text, { allow: [github.secret] })).toBeUndefined();
    expect(findSecret(github.text, { allow: ["ghp_[A-Za-z0-9]{36}"] })).toBeUndefined();
    expect(findSecret(npm.text, { allow: [github.secret, "ghp_[A-Za-z0-9]{36}"] })?.kind).toBe("npm_token");
    // A pattern must cover the whole value, and an entry that is not a pattern is only a value.
    expect(findSecret(github.text, { allow: ["ghp_"] })?.kind).toBe("github_token");
    expect(findSecret(github.text, { allow: ["(unclosed"] })?.kind).toBe("github_token");
    // Allowing the first secret uncovers the next one.
    const both = `${github.secret} ${npm.secret}`;
    expect(findSecret(both, { allow: [github.secret] })).toMatchObject({ kind: "npm_token" });
    expect(findSecretInFields([["tags[0]", github.text]], { allow: [github.secret] })).toBeUndefined();
  });

  it("allows AWS's documented example keys but not a real-looking key beside them", () => {
    const real = corpus.find((c) => c.kind === "aws_access_key")!.secret;
    expect(findSecret("AKIAIOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).toBeUndefined();
    expect(findSecret(`AKIAIOSFODNN7EXAMPLE then ${real}`)).toMatchObject({
      kind: "aws_access_key",
      start: 26,
    });
  });

  it("needs labelled values to look generated, not like names or placeholders", () => {
    expect(findSecret("password = hunter2x")).toMatchObject({
      kind: "password_assignment",
      start: 11,
      end: 19,
    });
    expect(findSecret("password: optional")).toBeUndefined();
    expect(findSecret("password_min_length: 12chars")).toBeUndefined();
    expect(findSecret("api_key = aaaaaaaaaaaaaaaa1")).toBeUndefined();
    expect(findSecret("cache_key = user-profile-v2-2024")).toBeUndefined();
    expect(findSecret("DD_API_KEY=00000000000000000000000000000000")).toBeUndefined();
  });

  it("has patterns the scanner can run: global, with lower-case keywords", () => {
    for (const rule of secretRules) {
      expect(rule.pattern.global, rule.kind).toBe(true);
      for (const keyword of rule.keywords ?? []) expect(keyword, rule.kind).toBe(keyword.toLowerCase());
    }
  });

  it("reports the first secret of the first field that has one, by path", () => {
    const gitlab = corpus.find((c) => c.kind === "gitlab_token")!.secret;
    const command = { memory: { slot: "creds", tags: ["ok", gitlab], content: "clean" } };
    expect(findSecretInFields(stringFields(command))).toMatchObject({
      field: "memory.tags[1]",
      kind: "gitlab_token",
    });
  });

  it("scans a 32,000-character mixed content", () => {
    const paragraphs = [
      ...lookAlikes.map((l) => l.text),
      "## Deploys\nThe API key and the access token live in the vault; rotate them monthly.",
      "function authorize(token: string) { return tokens.has(token) && !revoked(token); }",
      "项目包管理器使用 pnpm，密钥保存在保险库中。Проект использует ключи из хранилища.",
    ];
    let content = "";
    for (let i = 0; content.length < 32_000; i++) content += `${paragraphs[i % paragraphs.length]}\n\n`;
    content = content.slice(0, 32_000);
    expect(findSecret(content)).toBeUndefined();

    const secret = corpus.find((c) => c.kind === "google_api_key")!.secret;
    const withSecret = `${content.slice(0, 31_900)} ${secret} `;
    expect(findSecret(withSecret)).toMatchObject({ kind: "google_api_key", start: 31_901 });
  });
});
