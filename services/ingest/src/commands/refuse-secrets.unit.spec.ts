import type { CairnError } from "@cairn/contracts";
import { describe, expect, test } from "vitest";
import { refuseSecrets } from "./refuse-secrets.ts";

const principal = { tenant: "acme", agent: "alice", role: "agent", primary: false };
const noAllowList = async () => [];

async function refusal(promise: Promise<void>): Promise<CairnError> {
  return promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (error: CairnError) => error,
  );
}

// Built at run time, so no key-shaped literal sits in the source.
const githubToken = `ghp_${"x1".repeat(18)}`;

describe("refusing secrets", () => {
  test("a secret anywhere but the principal and token is refused without echoing it", async () => {
    const error = await refusal(refuseSecrets({ principal, reason: `leaked ${githubToken}` }, noAllowList));
    expect(error.code).toBe("secret_detected");
    expect(error.details).toEqual({ field: "reason", kind: "github_token", start: 7, end: 47 });
    expect(JSON.stringify(error.toBody())).not.toContain(githubToken);
    await expect(refuseSecrets({ principal, token: githubToken }, noAllowList)).resolves.toBeUndefined();
  });

  test("every label field is scanned like content and named in the refusal", async () => {
    const labels: [string, Record<string, unknown>][] = [
      ["memory.slot", { memory: { slot: githubToken } }],
      ["memory.title", { memory: { title: `see ${githubToken}` } }],
      ["memory.tags[1]", { memory: { tags: ["ok", githubToken] } }],
      ["memory.aliases[0]", { memory: { aliases: [githubToken] } }],
      ["memory.keys[0]", { memory: { keys: [githubToken] } }],
      ["memory.source", { memory: { source: `https://x.test/?t=${githubToken}` } }],
      ["memory.project", { memory: { project: githubToken } }],
      ["memory.episode.id", { memory: { episode: { id: githubToken } } }],
      ["note", { note: githubToken }],
      ["items[0].reasons[0]", { items: [{ reasons: [githubToken] }] }],
    ];
    for (const [field, command] of labels) {
      const error = await refusal(refuseSecrets({ principal, ...command }, noAllowList));
      expect(error.details).toMatchObject({ field, kind: "github_token" });
      expect(JSON.stringify(error.toBody())).not.toContain(githubToken);
    }
  });

  test("the tenant's allow-list lets its false positives through, read only when something was found", async () => {
    let reads = 0;
    const allowList = (entries: string[]) => async () => {
      reads += 1;
      return entries;
    };
    await refuseSecrets({ principal, memory: { content: "nothing here" } }, allowList([]));
    expect(reads).toBe(0);
    const command = { principal, memory: { content: `fixture ${githubToken}` } };
    await expect(refuseSecrets(command, allowList([githubToken]))).resolves.toBeUndefined();
    await expect(refuseSecrets(command, allowList(["ghp_(x1){18}"]))).resolves.toBeUndefined();
    expect(reads).toBe(2);
    // An entry allows the value it names, not another secret in the same command.
    const other = `ghp_${"y2".repeat(18)}`;
    const error = await refusal(
      refuseSecrets({ principal, memory: { content: `${githubToken} ${other}` } }, allowList([githubToken])),
    );
    expect(error.details).toMatchObject({ field: "memory.content", start: 41, end: 81 });
  });

  test("the allow-list itself is not scanned", async () => {
    const command = { principal, settings: { secretAllowList: [githubToken], skipPatterns: [] } };
    await expect(refuseSecrets(command, noAllowList)).resolves.toBeUndefined();
    const error = await refusal(
      refuseSecrets(
        { ...command, settings: { ...command.settings, skipPatterns: [githubToken] } },
        noAllowList,
      ),
    );
    expect(error.details).toMatchObject({ field: "settings.skipPatterns[0]" });
  });
});
