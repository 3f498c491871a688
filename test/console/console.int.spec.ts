// The web console in headless Chromium against the real stack: sign in with an API key, search
// with the ranking explanation and open a memory, walk the key graph, promote a proposal, see a
// refused action's message, the admin pages and a non-admin key kept out of them, a phone's
// width with the keyboard alone and no layout shift. Each test leaves screenshots under
// test-artifacts/console/ and prints their paths.
import type { Page } from "playwright-core";
import { expect, vi } from "vitest";
import { adminKey } from "../helpers/in-process-cairn.ts";
import {
  caughtUp,
  goToHash,
  inPage,
  layoutShifts,
  phone,
  type Stack,
  screenshot,
  signIn,
  consoleTest as test,
  watchLayoutShifts,
  written,
} from "./console-fixtures.ts";

// A browser, five services and their stores on two shared cores: minutes, not seconds.
vi.setConfig({ testTimeout: 240_000 });

/** Three memories of the admin's: two of one episode, linked, sharing a key; one apart. */
async function seedMemories(stack: Stack) {
  const target = await written(
    await stack.rest("POST", "/v1/memories", {
      slot: "deploy/target",
      title: "Deploy target",
      kind: "decision",
      content: "Deploys go to eu-west-1 through the blue-green pipeline.",
      tags: ["ops", "deploy"],
      keys: ["deployment", "eu-west"],
      episode: { id: "release-42", order: 1 },
    }),
  );
  const rollback = await written(
    await stack.rest("POST", "/v1/memories", {
      slot: "deploy/rollback",
      title: "Rollback plan",
      kind: "fix",
      content:
        "Roll a failed deploy back by switching traffic to the previous colour. See [[deploy/target]].",
      tags: ["ops"],
      keys: ["deployment", "rollback"],
      episode: { id: "release-42", order: 2 },
    }),
  );
  // A second version, so the memory's history has two.
  const revised = await stack.call(
    adminKey,
    "PATCH",
    `/v1/memories/${rollback.id}`,
    {
      content:
        "Roll a failed deploy back by switching traffic to the previous colour, then page the on-call. See [[deploy/target]].",
    },
    { "if-match": '"1"' },
  );
  expect(revised.status, await revised.clone().text()).toBe(200);
  const style = await written(
    await stack.rest("POST", "/v1/memories", {
      slot: "style/commits",
      title: "Commit style",
      kind: "preference",
      content: "Commit messages say why, in the imperative.",
      tags: ["style"],
    }),
  );
  await caughtUp(stack, adminKey, style.position);
  return { target, rollback, style };
}

/** Every URL the page asks for, to check that the key is in none of them. */
function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on("request", (request) => urls.push(request.url()));
  return urls;
}

const problemIn = (page: Page) => page.getByRole("alert").filter({ has: page.locator(".problem-detail") });

test("signs in with a key, searches with the ranking explanation and opens a memory", async ({
  stack,
  page,
}) => {
  const seeded = await seedMemories(stack);
  const urls = recordRequests(page);

  const served = await fetch(`${stack.baseUrl}/console`);
  expect(served.status).toBe(200);
  expect(served.headers.get("content-type")).toContain("text/html");
  expect(served.headers.get("content-security-policy")).toContain("script-src 'self'");
  const html = await served.text();
  const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  expect(script, html).toBeDefined();
  const asset = await fetch(`${stack.baseUrl}${script}`);
  expect(asset.status).toBe(200);
  expect(asset.headers.get("cache-control")).toContain("immutable");

  await page.goto(`${stack.baseUrl}/console`);
  await page.getByLabel("API key").waitFor();
  await screenshot(page, "sign-in");
  await signIn(page, stack, adminKey);

  const search = page.getByRole("searchbox", { name: "Search memories" });
  await search.fill("deploy rollback");
  await search.press("Enter");
  const rollbackRow = page.locator(".memory-row").filter({ hasText: "Rollback plan" });
  await rollbackRow.waitFor();
  expect(await page.locator(".memory-row").count()).toBeGreaterThanOrEqual(2);
  await rollbackRow.getByText(/Why this result/).click();
  const why = rollbackRow.locator(".explanation-body");
  await why.waitFor();
  const explanation = await why.textContent();
  expect(explanation).toMatch(/Relevance/);
  expect(explanation).toMatch(/Words \(BM25\): rank \d+/);
  expect(explanation).toMatch(/Ranking factors/);
  await screenshot(page, "memories-search");

  await rollbackRow.getByRole("link", { name: "Rollback plan" }).click();
  await page.getByRole("heading", { name: "Rollback plan" }).waitFor();
  const memory = page.locator("article.memory");
  expect(await memory.locator(".content").first().textContent()).toContain(
    "switching traffic to the previous colour",
  );
  // Its link, its episode neighbour, its keys and its history.
  expect(await memory.getByRole("link", { name: "Deploy target" }).count()).toBeGreaterThanOrEqual(1);
  expect(await memory.getByRole("list", { name: "Keys" }).textContent()).toContain("deployment");
  expect(await memory.locator(".history").textContent()).toMatch(/v1\s+memory\.recorded/);
  expect(await memory.locator(".history").textContent()).toMatch(/v2\s+memory\.revised/);
  expect(await memory.locator(".facts").first().textContent()).toContain(seeded.rollback.id);
  await screenshot(page, "memory");

  // Memory → key → memory.
  await memory.getByRole("list", { name: "Keys" }).getByRole("link", { name: "deployment" }).click();
  await page.getByRole("heading", { name: "deployment" }).waitFor();
  const keyMemories = page.locator("article .rows");
  await keyMemories.getByRole("link", { name: "Deploy target" }).waitFor();
  expect(await keyMemories.textContent()).toContain("Rollback plan");
  await screenshot(page, "key-graph");
  await keyMemories.getByRole("link", { name: "Deploy target" }).click();
  await page.getByRole("heading", { name: "Deploy target" }).waitFor();
  expect(page.url()).toContain(`#/memories/${seeded.target.id}`);

  // The key went only into headers: no URL, no storage (it was not asked to stay).
  expect(urls.filter((u) => u.includes(adminKey))).toEqual([]);
  expect(page.url()).not.toContain(adminKey);
  const stored = await inPage<string>(page, "JSON.stringify({ ...sessionStorage, ...localStorage })");
  expect(stored).not.toContain(adminKey);
});

test("a reviewer edits and promotes a proposal from the inbox", async ({ stack, page }) => {
  const agent = await stack.keyFor("claude-code", "agent");
  const reviewer = await stack.keyFor("rita", "reviewer");
  const proposal = await written(
    await stack.call(agent, "POST", "/v1/proposals", {
      slot: "db/staging",
      title: "Staging database",
      kind: "fact",
      content: "The staging database is refreshed from production every night.",
    }),
  );
  const second = await written(
    await stack.call(agent, "POST", "/v1/proposals", {
      slot: "ci/runners",
      title: "CI runners",
      kind: "fact",
      content: "CI jobs run on the shared runners in eu-west-1; the GPU runner is booked by the hour.",
      tags: ["ci"],
    }),
  );
  await caughtUp(stack, reviewer, Math.max(proposal.position, second.position));

  await signIn(page, stack, reviewer);
  await page.getByRole("link", { name: "Inbox" }).click();
  const card = page.getByRole("article", { name: "Staging database" });
  await card.waitFor();
  await page.getByRole("article", { name: "CI runners" }).waitFor();
  await screenshot(page, "inbox");
  await card.getByRole("button", { name: "Edit" }).click();
  await card
    .getByLabel("Content")
    .fill("The staging database is refreshed from production every night at 02:00 UTC.");
  await card.getByRole("button", { name: "Save and promote" }).click();
  const notice = page.locator(".notice-line");
  await notice.getByText("Promoted “Staging database”.").waitFor();
  const memoryHref = await notice.getByRole("link", { name: "Open the memory" }).getAttribute("href");
  const memoryId = /#\/memories\/([0-9a-f-]+)/.exec(memoryHref ?? "")?.[1];
  expect(memoryId, memoryHref ?? "").toBeDefined();
  await page.getByRole("article", { name: "Staging database" }).waitFor({ state: "detached" });
  await screenshot(page, "inbox-promoted");

  const promoted = (await (await stack.call(reviewer, "GET", `/v1/proposals/${proposal.id}`)).json()) as {
    document: { status: string; promotedTo: string };
  };
  expect(promoted.document.status).toBe("promoted");
  expect(promoted.document.promotedTo).toBe(memoryId);
  const made = (await (
    await stack.call(reviewer, "GET", `/v1/memories/${memoryId}?consistency=strong`)
  ).json()) as {
    document: { tier: string; content: string };
  };
  expect(made.document.tier).toBe("memory");
  expect(made.document.content).toContain("at 02:00 UTC");

  await notice.getByRole("link", { name: "Open the memory" }).click();
  await page.getByRole("heading", { name: "Staging database" }).waitFor();
  expect(await page.locator(".history").textContent()).toContain("memory.recorded");
});

test("a refused action shows the server's own message", async ({ stack, page }) => {
  const agent = await stack.keyFor("codex", "agent");
  const reviewer = await stack.keyFor("rita", "reviewer");
  const proposal = await written(
    await stack.call(agent, "POST", "/v1/proposals", {
      slot: "ci/cache",
      title: "CI cache",
      kind: "fact",
      content: "The CI cache is keyed by the lockfile's hash.",
    }),
  );
  await caughtUp(stack, agent, proposal.position);
  // What the server says to this key for this action, asked directly.
  const direct = await stack.call(
    agent,
    "POST",
    `/v1/proposals/${proposal.id}/promote`,
    {},
    { "if-match": '"1"' },
  );
  expect(direct.status).toBe(403);
  const refusal = (await direct.json()) as { detail: string; code: string };

  // An agent may propose but not promote: the console offers the button, the server refuses.
  await signIn(page, stack, agent);
  await page.getByRole("link", { name: "Inbox" }).click();
  const card = page.getByRole("article", { name: "CI cache" });
  await card.getByRole("button", { name: "Promote" }).click();
  const forbidden = card.getByRole("alert");
  await forbidden.waitFor();
  expect(await forbidden.getAttribute("data-code")).toBe("forbidden");
  expect(await forbidden.locator(".problem-detail").textContent()).toBe(refusal.detail);
  await screenshot(page, "refused-forbidden");

  // A reviewer promoting a version that moved meanwhile: 409, then a reload and it goes through.
  await page.getByRole("button", { name: "Sign out" }).click();
  await signIn(page, stack, reviewer);
  await page.getByRole("link", { name: "Inbox" }).click();
  const reviewed = page.getByRole("article", { name: "CI cache" });
  await reviewed.waitFor();
  const revised = await stack.call(
    agent,
    "PATCH",
    `/v1/proposals/${proposal.id}`,
    { content: "The CI cache is keyed by the lockfile's hash and the Node version." },
    { "if-match": '"1"' },
  );
  expect(revised.status, await revised.clone().text()).toBe(200);
  // The reviewer's reload is another key's read: it sees the revision once it is projected.
  await caughtUp(stack, agent, ((await revised.json()) as { position: number }).position);
  await reviewed.getByRole("button", { name: "Promote" }).click();
  const conflict = reviewed.getByRole("alert");
  await conflict.waitFor();
  expect(await conflict.getAttribute("data-code")).toBe("version_conflict");
  await screenshot(page, "refused-version-conflict");
  await conflict.getByRole("button", { name: "Reload" }).click();
  const fresh = page.getByRole("article", { name: "CI cache" }).filter({ hasText: "Node version" });
  await fresh.getByRole("button", { name: "Promote" }).click();
  await page.locator(".notice-line").getByText("Promoted “CI cache”.").waitFor();
  expect(await problemIn(page).count()).toBe(0);
});

test("a key that is not an admin's cannot reach the admin pages", async ({ stack, page }) => {
  const reviewer = await stack.keyFor("rita", "reviewer");
  await signIn(page, stack, reviewer);
  const nav = page.getByRole("navigation", { name: "Console" });
  const listed = (await nav.getByRole("link").allInnerTexts()).map((t) => t.trim());
  expect(listed).toEqual(["Memories", "Inbox", "Handoffs", "Key graph", "Status"]);

  for (const [hash, label] of [
    ["#/api-keys", "API keys"],
    ["#/events", "Events"],
    ["#/maintenance", "Maintenance"],
    ["#/settings", "Settings"],
  ] as const) {
    await goToHash(page, hash);
    await page.getByRole("heading", { name: label, level: 1 }).waitFor();
    const notice = page.getByRole("alert");
    expect(await notice.getAttribute("data-code")).toBe("admin_only");
    expect(await notice.textContent()).toContain("This page is for admins");
    if (hash === "#/api-keys") await screenshot(page, "admin-only");
  }
  // The server refuses the same key there too: the console only spares it the round trip.
  for (const path of ["/v1/api-keys", "/v1/events", "/v1/maintenance", "/v1/maintenance/doctor"]) {
    expect((await stack.call(reviewer, "GET", path)).status, path).toBe(403);
  }
  // Status, without the doctor's report (an admin's).
  await goToHash(page, "#/status");
  await page.getByRole("heading", { name: "This key and the services" }).waitFor();
  expect(await page.getByRole("heading", { name: /Doctor/ }).count()).toBe(0);
});

test("an admin sees handoffs, the event timeline, status and doctor, maintenance and API keys", async ({
  stack,
  page,
}) => {
  // Not the primary agent: another agent's private memory stays out of its sight.
  const admin = await stack.keyFor("ops-lead", "admin");
  const agent = await stack.keyFor("codex", "agent");
  const team = await written(
    await stack.call(admin, "POST", "/v1/memories", {
      slot: "oncall/rota",
      title: "On-call rota",
      content: "The on-call rota changes every Monday at 09:00.",
    }),
  );
  const privateMemory = await written(
    await stack.call(agent, "POST", "/v1/memories", {
      slot: "codex/scratch",
      title: "Private scratch",
      scope: "agent",
      content: "A private note about the flaky integration test.",
    }),
  );
  const handoff = await written(
    await stack.call(agent, "POST", "/v1/handoffs", {
      slot: "migrate/users",
      title: "Users table migration",
      content: "Half of the users are migrated; the rest wait for the backfill.",
    }),
  );
  // A deleted memory for the GC to purge (a delete runs in two steps too).
  const stale = await written(
    await stack.call(admin, "POST", "/v1/memories", {
      slot: "old/wiki",
      title: "Old wiki address",
      content: "The wiki used to live on the intranet host.",
    }),
  );
  const plan = await stack.call(admin, "DELETE", `/v1/memories/${stale.id}?dryRun=true`, undefined, {
    "if-match": '"1"',
  });
  const { token } = (await plan.json()) as { token: string };
  const deleted = await stack.call(admin, "DELETE", `/v1/memories/${stale.id}?token=${token}`, undefined, {
    "if-match": '"1"',
  });
  expect(deleted.status, await deleted.clone().text()).toBe(200);
  const { position: deletedAt } = (await deleted.json()) as { position: number };
  await caughtUp(stack, admin, Math.max(privateMemory.position, handoff.position, deletedAt));

  await signIn(page, stack, admin);
  const nav = page.getByRole("navigation", { name: "Console" });

  // Handoffs: close one with a summary.
  await nav.getByRole("link", { name: "Handoffs" }).click();
  const card = page.getByRole("article", { name: "Users table migration" });
  await card.getByRole("button", { name: "Complete…" }).click();
  await card.getByLabel("What was done?").fill("Backfill finished; all users migrated.");
  await card.getByRole("button", { name: "Complete", exact: true }).click();
  await page.locator(".notice-line").getByText("Completed “Users table migration”.").waitFor();
  await page.getByRole("link", { name: "Completed" }).click();
  await page.getByRole("article", { name: "Users table migration" }).waitFor();
  await screenshot(page, "handoffs");

  // Events: who, when, what; the text of what the admin may see, nothing of what it may not.
  await nav.getByRole("link", { name: "Events" }).click();
  const events = page.locator(".event-row");
  await events.first().waitFor();
  const recorded = events.filter({ hasText: `memory-${team.id}@1` });
  await recorded.getByText("Text of this version").click();
  expect(await recorded.locator(".content").textContent()).toBe(
    "The on-call rota changes every Monday at 09:00.",
  );
  expect(await recorded.textContent()).toContain("ops-lead");
  const hidden = events.filter({ hasText: "a memory you may not see" });
  expect(await hidden.count()).toBeGreaterThanOrEqual(1);
  expect(await hidden.first().textContent()).toContain("codex");
  const timeline = await page.locator("main").textContent();
  expect(timeline).not.toContain("flaky integration test");
  expect(timeline).not.toContain(privateMemory.id);
  await screenshot(page, "events");
  await recorded.getByRole("link", { name: `memory-${team.id}@1` }).click();
  await page.getByText(`of memory-${team.id}`).waitFor();
  await expect.poll(() => events.count(), { timeout: 10_000 }).toBe(1);

  // Status and the doctor's report.
  await nav.getByRole("link", { name: "Status" }).click();
  await page.getByRole("heading", { name: /Doctor/ }).waitFor();
  expect(await page.locator("main").textContent()).toMatch(/Read models/);
  await screenshot(page, "status");

  // Maintenance: a GC dry run gives a token; applying it runs exactly that plan.
  await nav.getByRole("link", { name: "Maintenance" }).click();
  await page.getByRole("heading", { name: "Schedules" }).waitFor();
  await page.getByLabel("Job").selectOption("gc");
  await page.getByLabel(/Parameters/).fill('{"olderThanDays": 0}');
  const apply = page.getByRole("button", { name: /^Apply/ });
  expect(await apply.isDisabled()).toBe(true);
  await page.getByRole("button", { name: "Preview (dry run)" }).click();
  const dryRun = page
    .locator(".run-record")
    .filter({ has: page.getByRole("heading", { name: /Dry run: gc/ }) });
  await dryRun.waitFor();
  expect(await dryRun.locator("tbody").textContent()).toContain(stale.id.slice(0, 8));
  await page.getByRole("button", { name: "Apply with the token" }).click();
  const appliedRun = page
    .locator(".run-record")
    .filter({ has: page.getByRole("heading", { name: /Applied: gc/ }) });
  await appliedRun.waitFor();
  expect(await appliedRun.locator("tbody").textContent()).toContain("applied");
  await screenshot(page, "maintenance");
  const purged = (await (
    await stack.call(admin, "GET", `/v1/memories/${stale.id}?consistency=strong`)
  ).json()) as {
    document: { purgedAt?: string | null; content: string };
  };
  expect(purged.document.purgedAt).toBeTruthy();
  expect(purged.document.content).toBe("");

  // API keys: a new key is shown once and works; revoked, it stops.
  await nav.getByRole("link", { name: "API keys" }).click();
  await page.getByRole("textbox", { name: "Agent", exact: true }).fill("cursor");
  await page.getByRole("button", { name: "Create key" }).click();
  const shownKey = await page.getByLabel("The new key").inputValue();
  expect(shownKey).toMatch(/^cairn_/);
  const who = (await (await stack.call(shownKey, "GET", "/v1/status")).json()) as {
    principal: { agent: string };
  };
  expect(who.principal.agent).toBe("cursor");
  const row = page.locator("tbody tr").filter({ hasText: "cursor" });
  await row.waitFor();
  await screenshot(page, "api-keys");
  await row.getByRole("button", { name: "Revoke…" }).click();
  await row.getByRole("button", { name: /^Revoke/ }).click();
  await page.locator("tbody tr").filter({ hasText: "cursor" }).waitFor({ state: "detached" });
  expect((await stack.call(shownKey, "GET", "/v1/status")).status).toBe(401);

  // Tenant settings: read with their version, changed at that version, recorded.
  await nav.getByRole("link", { name: "Settings" }).click();
  const editor = page.getByLabel("The tenant's settings (JSON)");
  await editor.waitFor();
  expect(await page.locator("#settings-version").textContent()).toContain("Version 0.");
  await editor.fill(
    JSON.stringify(
      {
        skipPatterns: ["^wip "],
        synonyms: [["k8s", "kubernetes"]],
        workflowLock: { reason: "release freeze", expiresAt: "2999-01-01T00:00:00.000Z" },
      },
      null,
      2,
    ),
  );
  await page.getByRole("button", { name: "Save" }).click();
  await page.locator("#settings-version").getByText("Version 1.").waitFor();
  expect(await page.locator("[role=status][aria-live]").textContent()).toContain("Settings saved.");
  await screenshot(page, "settings");
  const saved = await stack.call(admin, "GET", "/v1/settings");
  expect(saved.headers.get("etag")).toBe('"1"');
  expect(((await saved.json()) as { skipPatterns: string[] }).skipPatterns).toEqual(["^wip "]);
  // Status shows them in brief, with the lock in force.
  await nav.getByRole("link", { name: "Status" }).click();
  await page.getByText("release freeze").waitFor();
  const facts = (await page.locator("main .facts").first().textContent()) ?? "";
  expect(facts).toMatch(/version 1, changed .* by ops-lead; set: skipPatterns, synonyms, workflowLock/);
  await screenshot(page, "status-settings");
  await nav.getByRole("link", { name: "Settings" }).click();
  await page.locator("#settings-version").getByText("Version 1.").waitFor();
  // Someone else changes them meanwhile: the console's save at version 1 is refused, as the server says.
  const other = await stack.call(
    admin,
    "PATCH",
    "/v1/settings",
    { workflowLock: null },
    { "if-match": '"1"' },
  );
  expect(other.status, await other.clone().text()).toBe(200);
  await editor.fill(JSON.stringify({ skipPatterns: [] }));
  await page.getByRole("button", { name: "Save" }).click();
  const refusal = page.locator(".edit-form").getByRole("alert");
  await refusal.waitFor();
  expect(await refusal.getAttribute("data-code")).toBe("version_conflict");
});

test("at a phone's width, with the keyboard alone, nothing moves while data loads", async ({
  stack,
  page,
}) => {
  await seedMemories(stack);
  await page.setViewportSize(phone);
  await watchLayoutShifts(page);
  await page.goto(`${stack.baseUrl}/console`);

  // The key field has the focus: type, Enter.
  await page.getByLabel("API key").waitFor();
  await page.keyboard.type(adminKey);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Memories", level: 1 }).waitFor();
  await page.locator(".memory-row").first().waitFor();

  // From the page's heading, Tab reaches the search field; type, Enter; Tab on to a result.
  const focused = () => inPage<string>(page, "document.activeElement?.id ?? ''");
  expect(await focused()).toBe("page-title");
  await page.keyboard.press("Tab");
  expect(await focused()).toBe("memory-query");
  await page.keyboard.type("rollback");
  await page.keyboard.press("Enter");
  await page.locator(".memory-row").filter({ hasText: "Rollback plan" }).waitFor();
  let onResult = false;
  for (let i = 0; i < 30 && !onResult; i++) {
    await page.keyboard.press("Tab");
    onResult = await inPage<boolean>(page, "document.activeElement?.textContent === 'Rollback plan'");
  }
  expect(onResult).toBe(true);
  await screenshot(page, "phone-memories");
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Rollback plan" }).waitFor();
  await screenshot(page, "phone-memory");

  await goToHash(page, "#/status");
  await page.getByRole("heading", { name: /Doctor/ }).waitFor();
  await screenshot(page, "phone-status");

  const overflow = await inPage<number>(page, "document.documentElement.scrollWidth - window.innerWidth");
  expect(overflow).toBeLessThanOrEqual(0);
  const shifts = await layoutShifts(page);
  const total = shifts.reduce((sum, s) => sum + s.value, 0);
  expect(total, JSON.stringify(shifts)).toBeLessThan(0.01);
});
