import { createServer } from "node:net";
import { describe, expect, test } from "vitest";
import { isWaitForTimeoutError, type WaitForTimeoutError } from "./errors.ts";
import { freePort } from "./free-port.ts";
import { makeUniqueName } from "./unique-name.ts";
import { waitFor } from "./wait-for.ts";

describe("waitFor", () => {
  test("resolves with the first value that is not false and does not throw", async () => {
    let calls = 0;
    const value = await waitFor(
      () => {
        calls += 1;
        if (calls < 3) throw new Error("not yet");
        return calls === 3 ? false : calls;
      },
      { intervalMs: 1 },
    );
    expect(value).toBe(4);
  });

  test("accepts assertion blocks that return nothing", async () => {
    let ready = false;
    setTimeout(() => {
      ready = true;
    }, 20);
    await waitFor(
      () => {
        expect(ready).toBe(true);
      },
      { intervalMs: 5 },
    );
  });

  test("times out with a clear error carrying the last failure", async () => {
    const error = await waitFor(
      () => {
        throw new Error("still starting");
      },
      { timeoutMs: 50, intervalMs: 10, description: "the projection" },
    ).catch((e: unknown) => e);
    expect(isWaitForTimeoutError(error)).toBe(true);
    const timeout = error as WaitForTimeoutError;
    expect(timeout.code).toBe("WAIT_FOR_TIMEOUT");
    expect(timeout.message).toMatch(
      /Timed out after 50 ms .* waiting for the projection; last error: still starting/,
    );
    expect((timeout.cause as Error).message).toBe("still starting");
  });
});

describe("freePort", () => {
  test("returns a port that can be listened on", async () => {
    const port = await freePort();
    await new Promise<void>((resolve, reject) => {
      const server = createServer();
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => server.close(() => resolve()));
    });
  });
});

describe("makeUniqueName", () => {
  test("is unique and safe as a database, stream and key name", () => {
    const names = new Set(Array.from({ length: 100 }, () => makeUniqueName("s")));
    expect(names.size).toBe(100);
    for (const name of names) expect(name).toMatch(/^s_[a-z0-9_]+$/);
  });
});
