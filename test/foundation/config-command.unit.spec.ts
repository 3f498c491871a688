// `pnpm cairn config`: what each service would start with, and where each setting came from,
// with secrets masked; a file with a mistake is reported by file and key, with exit code 1.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/service-processes.ts";

const dir = mkdtempSync(join(tmpdir(), "cairn-config-command-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The command with only these settings (the runner's own CAIRN_* variables left out). */
function config(env: Record<string, string>, args: string[] = []) {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("CAIRN_")));
  const run = spawnSync(process.execPath, ["scripts/cairn.ts", "config", ...args], {
    cwd: repoRoot,
    env: { ...base, ...env },
    encoding: "utf8",
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

type Row = { name: string; value: string | null; source: string };

describe("pnpm cairn config", () => {
  it("prints every service's settings with their source, secrets masked", () => {
    const path = join(dir, "cairn.toml");
    writeFileSync(
      path,
      [
        'CAIRN_DATABASE_URL = "postgres://cairn:s3cret@db.internal:5432/cairn"',
        "[gateway]",
        "CAIRN_PORT = 9090",
        'CAIRN_ADMIN_KEY = "cairn_0123456789abcdefghijklmnop"',
        "[maintenance]",
        "CAIRN_MAINTENANCE_GC_ENABLED = true",
      ].join("\n"),
    );
    const run = config({ CAIRN_CONFIG: path, CAIRN_LOG_LEVEL: "debug" }, ["--json"]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { file: string; services: Record<string, Row[]> };
    expect(out.file).toBe(path);
    expect(Object.keys(out.services).sort()).toEqual([
      "gateway",
      "ingest",
      "maintenance",
      "ranking",
      "search",
    ]);
    const row = (service: string, name: string) => out.services[service]?.find((r) => r.name === name);
    expect(row("gateway", "CAIRN_PORT")).toEqual({ name: "CAIRN_PORT", value: "9090", source: "file" });
    expect(row("gateway", "CAIRN_ADMIN_KEY")).toMatchObject({ value: "********", source: "file" });
    expect(row("ingest", "CAIRN_DATABASE_URL")).toMatchObject({
      value: "postgres://cairn:********@db.internal:5432/cairn",
      source: "file",
    });
    expect(row("search", "CAIRN_LOG_LEVEL")).toMatchObject({ value: "debug", source: "env" });
    expect(row("maintenance", "CAIRN_MAINTENANCE_GC_ENABLED")).toMatchObject({
      value: "true",
      source: "file",
    });
    expect(row("ranking", "CAIRN_RANKING_WAIT_MS")).toMatchObject({ value: "10000", source: "default" });
    expect(run.stdout).not.toContain("s3cret");
    expect(run.stdout).not.toContain("abcdefghijklmnop");

    const text = config({ CAIRN_CONFIG: path }, ["--service", "gateway"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/CAIRN_PORT\s+9090\s+file/);
    expect(text.stdout).toMatch(/CAIRN_HOST\s+127\.0\.0\.1\s+default/);
  });

  it("names the file and the key of a mistake and exits 1", () => {
    const path = join(dir, "bad.toml");
    writeFileSync(path, "[gateway]\nCAIRN_PORT = 99999\n");
    const bad = config({ CAIRN_CONFIG: path });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${path}: [gateway] CAIRN_PORT: Too big`);

    const typo = join(dir, "typo.json");
    writeFileSync(typo, JSON.stringify({ CAIRN_DATABSE_URL: "postgres://x" }));
    const unknown = config({ CAIRN_CONFIG: typo });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`${typo}: CAIRN_DATABSE_URL: no service has this setting`);
  });
});
