// The configuration file as a service reads it at start: JSON or TOML under the environment
// variables' names, a service's section over the top level, the environment over both, the
// schema's defaults under all; every mistake named with the file, the key and what is wrong.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { baseEnvSchema, parseEnv, parseSettings } from "./base-env.ts";
import { maskSetting } from "./mask-setting.ts";
import { startService } from "./run-service.ts";

const dir = mkdtempSync(join(tmpdir(), "cairn-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const schema = baseEnvSchema.extend({
  CAIRN_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  CAIRN_ALLOWED_HOSTS: z
    .string()
    .default("")
    .transform((s) => s.split(",").filter(Boolean)),
  CAIRN_SCHEDULER: z
    .enum(["true", "false"])
    .default("true")
    .transform((v) => v === "true"),
});

const toml = file(
  "cairn.toml",
  `# shared by every service
CAIRN_LOG_LEVEL = "warn"
CAIRN_PORT = 7000
CAIRN_DATABASE_URL = "postgres://cairn:s3cret@db:5432/cairn"

[gateway]
CAIRN_PORT = 9090
CAIRN_ALLOWED_HOSTS = ["cairn.example.com", "mcp.example.com"]
CAIRN_SCHEDULER = false
`,
);

describe("CAIRN_CONFIG", () => {
  it("reads TOML: the environment over the service's section over the top level over defaults", () => {
    const gateway = parseSettings(
      schema,
      { CAIRN_CONFIG: toml, CAIRN_LOG_LEVEL: "debug" },
      { service: "gateway" },
    );
    expect(gateway.config).toMatchObject({
      CAIRN_LOG_LEVEL: "debug",
      CAIRN_PORT: 9090,
      CAIRN_ALLOWED_HOSTS: ["cairn.example.com", "mcp.example.com"],
      CAIRN_SCHEDULER: false,
      CAIRN_DATABASE_URL: "postgres://cairn:s3cret@db:5432/cairn",
      CAIRN_REDIS_URL: "redis://127.0.0.1:56379",
    });
    expect(gateway.sources).toMatchObject({
      CAIRN_LOG_LEVEL: "env",
      CAIRN_PORT: "file",
      CAIRN_DATABASE_URL: "file",
      CAIRN_REDIS_URL: "default",
    });
    // An empty variable (compose's `${X:-}`) does not hide the file's value.
    expect(parseEnv(schema, { CAIRN_CONFIG: toml, CAIRN_PORT: "" }, { service: "gateway" }).CAIRN_PORT).toBe(
      9090,
    );
    // Another service reads the top level only.
    expect(parseEnv(schema, { CAIRN_CONFIG: toml }, { service: "search" }).CAIRN_PORT).toBe(7000);
    // Without a file: the environment and the defaults, as before.
    expect(parseEnv(schema, {}).CAIRN_PORT).toBe(8080);
  });

  it("reads JSON the same way", () => {
    const json = file(
      "cairn.json",
      JSON.stringify({ CAIRN_PORT: 7100, gateway: { CAIRN_ALLOWED_HOSTS: ["a.example.com"] } }),
    );
    expect(parseEnv(schema, { CAIRN_CONFIG: json }, { service: "gateway" })).toMatchObject({
      CAIRN_PORT: 7100,
      CAIRN_ALLOWED_HOSTS: ["a.example.com"],
    });
  });

  it("names the file, the key and what is wrong", () => {
    const at =
      (text: string, name = "bad.toml") =>
      () =>
        parseEnv(schema, { CAIRN_CONFIG: file(name, text) }, { service: "gateway" });
    expect(at("[gateway]\nCAIRN_PORT = 99999\n")).toThrow(/bad\.toml: \[gateway\] CAIRN_PORT: Too big/);
    expect(at('CAIRN_LOG_LEVEL = "loud"\n')).toThrow(/bad\.toml: CAIRN_LOG_LEVEL: Invalid option/);
    expect(at("[gateway]\nCAIRN_PROT = 1\n")).toThrow(
      /bad\.toml: \[gateway\] CAIRN_PROT: is not a setting of gateway/,
    );
    expect(at("[gatway]\nCAIRN_PORT = 1\n")).toThrow(/bad\.toml: \[gatway\]: is not a service/);
    expect(at("port = 1\n")).toThrow(/bad\.toml: port: is not a setting/);
    expect(at("CAIRN_PORT = [1\n")).toThrow(/bad\.toml: not valid TOML \(line 2, column 1\)/);
    expect(at('{"CAIRN_PORT": ', "bad.json")).toThrow(/bad\.json: not valid JSON/);
    expect(at("[gateway.tls]\nCAIRN_PORT = 1\n")).toThrow(/\[gateway\] tls: is not a setting/);
    expect(at("CAIRN_PORT = 1", "cairn.yaml")).toThrow(/cairn\.yaml: name it \.toml or \.json/);
    expect(() => parseEnv(schema, { CAIRN_CONFIG: join(dir, "missing.toml") })).toThrow(
      /missing\.toml: cannot be read \(ENOENT\)/,
    );
    // A bad value from the environment is named as such, not as the file's.
    expect(() => parseEnv(schema, { CAIRN_CONFIG: toml, CAIRN_PORT: "x" }, { service: "gateway" })).toThrow(
      /^invalid configuration:\n {2}CAIRN_PORT: /,
    );
  });

  it("stops a service at start with that message", async () => {
    const bad = file("start.toml", "[gateway]\nCAIRN_PORT = -1\n");
    await expect(
      startService({ name: "gateway", envSchema: schema, start: async () => ({}) }, { CAIRN_CONFIG: bad }),
    ).rejects.toThrow(/start\.toml: \[gateway\] CAIRN_PORT/);
  });

  it("masks secrets and the passwords in URLs", () => {
    expect(maskSetting("CAIRN_ADMIN_KEY", "cairn_0123456789abcdef01234567")).toBe("********");
    expect(maskSetting("CAIRN_TOKEN_SECRET", "x".repeat(40))).toBe("********");
    expect(maskSetting("CAIRN_EMBEDDING_API_KEY", "sk-abc")).toBe("********");
    expect(maskSetting("CAIRN_NATS_NKEY_SEED", "SUAB")).toBe("********");
    expect(maskSetting("CAIRN_NATS_NKEY_SEED_FILE", "/run/secrets/seed")).toBe("/run/secrets/seed");
    expect(maskSetting("CAIRN_DATABASE_URL", "postgres://cairn:s3cret@db:5432/cairn")).toBe(
      "postgres://cairn:********@db:5432/cairn",
    );
    expect(maskSetting("CAIRN_REDIS_URL", "redis://:hunter2@cache:6379")).toBe(
      "redis://:********@cache:6379",
    );
    expect(maskSetting("CAIRN_DATABASE_URL", "postgres://postgres@127.0.0.1:55432/cairn")).toBe(
      "postgres://postgres@127.0.0.1:55432/cairn",
    );
    expect(maskSetting("CAIRN_PORT", "8080")).toBe("8080");
  });
});
