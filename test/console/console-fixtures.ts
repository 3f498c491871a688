// What the console's browser tests share: the real stack in this process (all five services on
// the worker's Postgres, Redis and NATS, a fresh database per test), Debian's Chromium driven
// by playwright-core (one browser per worker, a fresh context per test), API keys of each role
// made through the REST API, and screenshots kept as artifacts under test-artifacts/console/.
import { mkdir } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { infraTest } from "@cairn/testing";
import { type Browser, chromium, type Page } from "playwright-core";
import { expect } from "vitest";
import { adminKey, type InProcessCairn, startInProcessCairn } from "../helpers/in-process-cairn.ts";

const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const artifactsDir = join(repositoryRoot, "test-artifacts", "console");

/** Debian's Chromium (infra/local/install-packages.sh installs it); CAIRN_CHROMIUM for another. */
const chromiumPath = process.env.CAIRN_CHROMIUM ?? "/usr/bin/chromium";

export const laptop = { width: 1366, height: 860 };
export const phone = { width: 390, height: 844 };

export type Role = "agent" | "reviewer" | "admin";

export type Stack = InProcessCairn & {
  /** A REST call with a given key. */
  call: (
    key: string,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => Promise<Response>;
  /** A new API key of the test's tenant, made by the admin over REST. */
  keyFor: (agent: string, role: Role, primary?: boolean) => Promise<string>;
};

export const consoleTest = infraTest
  .extend("stack", async ({ databaseUrl, redis, nats, uniqueName }, { onCleanup }): Promise<Stack> => {
    const cairn = await startInProcessCairn({
      databaseUrl,
      redisUrl: redis.url,
      natsUrl: nats.url,
      uniqueName,
    });
    onCleanup(() => cairn.stop());
    const call: Stack["call"] = (key, method, path, body, headers = {}) =>
      fetch(`${cairn.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const keyFor: Stack["keyFor"] = async (agent, role, primary = false) => {
      const res = await call(adminKey, "POST", "/v1/api-keys", { agent, role, primary });
      expect(res.status, await res.clone().text()).toBe(201);
      return ((await res.json()) as { key: string }).key;
    };
    return { ...cairn, call, keyFor };
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  .extend("browser", { scope: "worker" }, async ({}, { onCleanup }): Promise<Browser> => {
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      // Tests run as root in CI, where Chromium's sandbox cannot start.
      args: ["--no-sandbox", "--disable-dev-shm-usage"],
    });
    onCleanup(() => browser.close());
    return browser;
  })
  .extend("page", async ({ browser }, { onCleanup }): Promise<Page> => {
    const context = await browser.newContext({ viewport: laptop, reducedMotion: "reduce" });
    onCleanup(() => context.close());
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    return page;
  });

/** Saves a full-page screenshot under test-artifacts/console/ and prints where it is. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(artifactsDir, { recursive: true });
  const path = join(artifactsDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot: ${relative(process.cwd(), path)}`);
  return path;
}

/** Opens the console and signs in with `key` (typed into the form, as a person would). */
export async function signIn(page: Page, stack: Stack, key: string, options: { keep?: boolean } = {}) {
  await page.goto(`${stack.baseUrl}/console`);
  await page.getByLabel("API key").fill(key);
  if (options.keep) await page.getByLabel(/Stay signed in/).check();
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Console" }).waitFor();
}

/** The written memory's id and log position, after a 201. */
export async function written(res: Response): Promise<{ id: string; version: number; position: number }> {
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: string; version: number; position: number };
}

/** Waits until the read models have applied `position` (read-your-writes through REST). */
export async function caughtUp(stack: Stack, key: string, position: number): Promise<void> {
  const res = await stack.call(key, "GET", `/v1/memories?afterPosition=${position}&limit=1`);
  expect(res.status, await res.clone().text()).toBe(200);
}

/**
 * Starts counting layout shifts on every page the browser opens from now on (the Layout
 * Instability API, which Chromium implements), leaving out those right after input. The
 * script runs in the page, so it is given as text (this project's types have no DOM).
 */
export async function watchLayoutShifts(page: Page): Promise<void> {
  await page.addInitScript({
    content: `
      window.__shifts = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          if (entry.hadRecentInput) continue;
          window.__shifts.push({
            value: entry.value,
            sources: (entry.sources || []).map((s) =>
              s.node && s.node.tagName ? s.node.tagName.toLowerCase() + "." + s.node.className : String(s.node),
            ),
          });
        }
      }).observe({ type: "layout-shift", buffered: true });
    `,
  });
}

/** The layout shifts counted on the current document so far. */
export function layoutShifts(page: Page): Promise<{ value: number; sources: string[] }[]> {
  return page.evaluate<{ value: number; sources: string[] }[]>("window.__shifts");
}

/** Runs a line of script in the page (given as text: this project's types have no DOM). */
export function inPage<T>(page: Page, script: string): Promise<T> {
  return page.evaluate<T>(script);
}

/** Moves to a console page by its hash, as a link or a bookmark would. */
export async function goToHash(page: Page, hash: string): Promise<void> {
  await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
}
