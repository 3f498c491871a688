import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { serviceNodeOptions, withServiceNodeOptions } from "./node-options.ts";

describe("the services' Node.js options", () => {
  it("are the container image's too", () => {
    const dockerfile = readFileSync(new URL("../../../../Dockerfile", import.meta.url), "utf8");
    const runtime = dockerfile.slice(dockerfile.indexOf("AS runtime"));
    expect(runtime).toContain(`ENV NODE_OPTIONS="${serviceNodeOptions.join(" ")}"`);
  });

  it("are in each service's own start script", () => {
    for (const service of ["ingest", "search", "ranking", "maintenance", "gateway"]) {
      const manifest = JSON.parse(
        readFileSync(new URL(`../../../${service}/package.json`, import.meta.url), "utf8"),
      ) as { scripts: { start: string } };
      expect(manifest.scripts.start, service).toBe(`node ${serviceNodeOptions.join(" ")} src/main.ts`);
    }
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

  it("reach a service process: its young generation stays within the semi-space size", () => {
    /** The most the young generation took while a process allocated 4 million objects. */
    const youngGeneration = (env: NodeJS.ProcessEnv): number => {
      const probe = spawnSync(
        process.execPath,
        [
          "-e",
          "const young = () => require('node:v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space').space_size; " +
            "let most = young(); const a = []; for (let i = 0; i < 4e6; i++) a.push({ i }); most = Math.max(most, young()); " +
            "console.log(most)",
        ],
        { env, encoding: "utf8" },
      );
      expect(probe.status, probe.stderr).toBe(0);
      return Number(probe.stdout.trim());
    };
    // The probe tells sizes apart: with halves of 64 MB the young generation grows past 48 MB.
    expect(youngGeneration({ ...process.env, NODE_OPTIONS: "--max-semi-space-size=64" })).toBeGreaterThan(
      48 * 1024 * 1024,
    );
    // With the services' options (two halves of at most 16 MB each, and a third page set at most).
    expect(youngGeneration(withServiceNodeOptions({ ...process.env, NODE_OPTIONS: "" }))).toBeLessThanOrEqual(
      48 * 1024 * 1024,
    );
  });
});
