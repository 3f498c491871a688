import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { serviceNodeOptions, withServiceNodeOptions } from "./node-options.ts";

describe("the services' Node.js options", () => {
  it("are the container image's too", () => {
    const dockerfile = readFileSync(new URL("../../../../Dockerfile", import.meta.url), "utf8");
    const runtime = dockerfile.slice(dockerfile.indexOf("AS runtime"));
    expect(runtime).toContain(`ENV NODE_OPTIONS="${serviceNodeOptions.join(" ")}"`);
  });

  it("come first in NODE_OPTIONS, before what the environment gave, which is kept", () => {
    expect(withServiceNodeOptions({ PATH: "/bin" })).toEqual({
      PATH: "/bin",
      NODE_OPTIONS: "--max-semi-space-size=16",
    });
    expect(withServiceNodeOptions({ NODE_OPTIONS: "--cpu-prof --max-semi-space-size=32" }).NODE_OPTIONS).toBe(
      "--max-semi-space-size=16 --cpu-prof --max-semi-space-size=32",
    );
    // Given twice (the runner, then each service it starts), they are there once.
    const once = withServiceNodeOptions({ NODE_OPTIONS: "--enable-source-maps" });
    expect(withServiceNodeOptions(once)).toEqual(once);
  });

  it("reach a service process: its young generation stays within the semi-space size", async () => {
    const { spawnSync } = await import("node:child_process");
    const env = withServiceNodeOptions({ ...process.env, NODE_OPTIONS: "" });
    const probe = spawnSync(
      process.execPath,
      [
        "-e",
        "const s = require('node:v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space'); " +
          "const a = []; for (let i = 0; i < 4e6; i++) a.push({ i }); a.length = 0; " +
          "const t = require('node:v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space'); " +
          "console.log(Math.max(s.space_size, t.space_size))",
      ],
      { env, encoding: "utf8" },
    );
    expect(probe.status).toBe(0);
    // Two halves of at most 16 MB each (V8's new space holds both; a third page set at most).
    expect(Number(probe.stdout.trim())).toBeLessThanOrEqual(48 * 1024 * 1024);
  });
});
