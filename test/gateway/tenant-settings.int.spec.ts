// Tenant settings through REST, against the real ingest and search services: an admin reads
// them with their version and changes some of them (a stale version is a 409, a bad value a
// 422 naming the field), the change takes effect (a false positive allow-listed is then
// accepted), and a key that is not an admin's can do neither.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HarnessSuite, startHarnessSuite } from "./gateway-stack.ts";

let suite: HarnessSuite;

beforeAll(async () => {
  suite = await startHarnessSuite("gateway_settings");
});

afterAll(async () => {
  await suite?.stop();
});

const rest: HarnessSuite["rest"] = (...args) => suite.rest(...args);

const fixtureToken = `ghp_${"f1x7ur3".repeat(6).slice(0, 36)}`;

describe("REST: /v1/settings", () => {
  it("an admin reads and changes the settings, with their version; the change takes effect", async () => {
    const empty = await rest("admin", "GET", "/v1/settings");
    expect(empty.status).toBe(200);
    expect(empty.headers.get("etag")).toBe('"0"');
    expect(await empty.json()).toEqual({});

    const note = { slot: "ci/fixture", content: `The CI fixture token is ${fixtureToken}.` };
    const refused = await rest("admin", "POST", "/v1/memories", note);
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { code: string }).code).toBe("secret_detected");

    const changed = await rest(
      "admin",
      "PATCH",
      "/v1/settings",
      { secretAllowList: [fixtureToken], skipPatterns: ["^wip "] },
      { "If-Match": '"0"' },
    );
    expect(changed.status, await changed.clone().text()).toBe(200);
    expect(changed.headers.get("etag")).toBe('"1"');

    const read = await rest("admin", "GET", "/v1/settings");
    expect(read.headers.get("etag")).toBe('"1"');
    expect(await read.json()).toEqual({ secretAllowList: [fixtureToken], skipPatterns: ["^wip "] });
    expect((await rest("admin", "POST", "/v1/memories", note)).status).toBe(201);

    // Another change since version 0: refused, nothing recorded.
    const stale = await rest("admin", "PATCH", "/v1/settings", { skipPatterns: [] }, { "If-Match": '"0"' });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { code: string }).code).toBe("version_conflict");
    // Without If-Match the change applies to whatever is there; fields left out stay.
    expect((await rest("admin", "PATCH", "/v1/settings", { skipPatterns: [] })).status).toBe(200);
    const after = await rest("admin", "GET", "/v1/settings");
    expect(after.headers.get("etag")).toBe('"2"');
    expect(await after.json()).toEqual({ secretAllowList: [fixtureToken], skipPatterns: [] });
  });

  it("refuses a bad value by its field, an unknown field, and every key that is not an admin's", async () => {
    const badPattern = await rest("admin", "PATCH", "/v1/settings", { skipPatterns: ["(unclosed"] });
    expect(badPattern.status).toBe(422);
    expect(((await badPattern.json()) as { detail: string }).detail).toContain("skip pattern 0");
    const unknown = await rest("admin", "PATCH", "/v1/settings", { colour: "blue" });
    expect(unknown.status).toBe(422);
    expect(((await unknown.json()) as { code: string }).code).toBe("unknown_field");
    for (const key of ["alice", "reviewer"] as const) {
      expect((await rest(key, "GET", "/v1/settings")).status).toBe(403);
      expect((await rest(key, "PATCH", "/v1/settings", { skipPatterns: [] })).status).toBe(403);
    }
  });
});
