// A tenant's allow-list of secret-detection false positives, as an admin sets it and ingest
// applies it: its values pass in that tenant only, everything else is still refused, and an
// entry that would let any value through is refused itself.
import { streamIdFor } from "@cairn/contracts";
import { describe, expect } from "vitest";
import { admin, alice, ingestTest, outsider, refusedWith } from "../testing/ingest-under-test.ts";

const test = ingestTest;

// A test fixture's token: a GitHub token by its shape, built at run time.
const fixtureToken = `ghp_${"f1x7ur3".repeat(6).slice(0, 36)}`;
const liveToken = `ghp_${"L1v3t0k".repeat(6).slice(0, 36)}`;

describe("the per-tenant secret allow-list", () => {
  test("an admin allow-lists a false positive: it is stored in that tenant, other secrets are still refused", async ({
    ingest,
  }) => {
    const write = (principal: typeof alice, slot: string, content: string, tags: string[] = []) =>
      ingest.send("memory.create", { principal, memory: { slot, content, tags } });
    const before = await refusedWith(
      "secret_detected",
      write(alice, "fixture", `Use ${fixtureToken} in tests.`),
    );
    expect(before.hint).toMatch(/secretAllowList/);

    await refusedWith(
      "forbidden",
      ingest.send("tenant.change_settings", {
        principal: alice,
        settings: { secretAllowList: [fixtureToken] },
      }),
    );
    await ingest.send("tenant.change_settings", {
      principal: admin,
      settings: { secretAllowList: [fixtureToken, "ghp_test[A-Za-z0-9]{32}"] },
    });
    const stored = await write(alice, "fixture", `Use ${fixtureToken} in tests.`, [fixtureToken]);
    expect(stored.version).toBe(1);
    await write(alice, "pattern", `Also ghp_test${"a".repeat(32)} works.`);
    // A value the list does not name is refused, by field and position, never echoed.
    const refused = await refusedWith(
      "secret_detected",
      write(alice, "live", `Fixture ${fixtureToken}, and prod ${liveToken}.`),
    );
    expect(refused.details).toMatchObject({
      field: "memory.content",
      kind: "github_token",
      start: `Fixture ${fixtureToken}, and prod `.length,
    });
    expect(JSON.stringify(refused.toBody())).not.toContain(liveToken);
    // Another tenant's list is its own.
    await refusedWith("secret_detected", write(outsider, "fixture", `Use ${fixtureToken} in tests.`));
    const settings = await ingest.store.readStream(streamIdFor("tenant", "acme"));
    expect(settings.at(-1)?.data).toEqual({ secretAllowList: [fixtureToken, "ghp_test[A-Za-z0-9]{32}"] });
  });

  test("an entry that would let any value through is refused, and the list can be emptied", async ({
    ingest,
  }) => {
    for (const entry of [".*", ".+", "\\S+", "[A-Za-z0-9]{32}"]) {
      const error = await refusedWith(
        "validation_failed",
        ingest.send("tenant.change_settings", {
          principal: admin,
          settings: { secretAllowList: ["fine-value", entry] },
        }),
      );
      expect(error.details).toEqual({ field: "settings.secretAllowList[1]" });
    }
    await ingest.send("tenant.change_settings", {
      principal: admin,
      settings: { secretAllowList: [fixtureToken] },
    });
    await ingest.send("tenant.change_settings", { principal: admin, settings: { secretAllowList: [] } });
    await refusedWith(
      "secret_detected",
      ingest.send("memory.create", { principal: alice, memory: { slot: "s", content: `t ${fixtureToken}` } }),
    );
  });
});
