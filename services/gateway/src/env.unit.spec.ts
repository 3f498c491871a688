import { parseEnv } from "@cairn/service-runtime";
import { describe, expect, it } from "vitest";
import { gatewayEnvSchema } from "./env.ts";

describe("gateway settings", () => {
  it("defaults to loopback on 8080 in local mode", () => {
    const env = parseEnv(gatewayEnvSchema, {});
    expect(env).toMatchObject({ CAIRN_HOST: "127.0.0.1", CAIRN_PORT: 8080, CAIRN_MODE: "local" });
    expect(env.CAIRN_ADMIN_KEY).toBeUndefined();
  });

  it("takes an empty admin key as unset, as compose passes it", () => {
    expect(parseEnv(gatewayEnvSchema, { CAIRN_ADMIN_KEY: "" }).CAIRN_ADMIN_KEY).toBeUndefined();
  });

  it("refuses a short admin key and a bad port with the setting named", () => {
    expect(() => parseEnv(gatewayEnvSchema, { CAIRN_ADMIN_KEY: "short" })).toThrow(/CAIRN_ADMIN_KEY/);
    expect(() => parseEnv(gatewayEnvSchema, { CAIRN_PORT: "99999" })).toThrow(/CAIRN_PORT/);
  });

  it("throttles wrong keys, trusts no proxy and checks no extra Host unless configured", () => {
    const env = parseEnv(gatewayEnvSchema, {});
    expect(env).toMatchObject({
      CAIRN_AUTH_FAILURE_LIMIT: 20,
      CAIRN_AUTH_FAILURE_WINDOW_MS: 60_000,
      CAIRN_TRUST_PROXY: false,
      CAIRN_ALLOWED_HOSTS: [],
    });
    expect(parseEnv(gatewayEnvSchema, { CAIRN_TRUST_PROXY: "true" }).CAIRN_TRUST_PROXY).toBe(true);
    expect(parseEnv(gatewayEnvSchema, { CAIRN_TRUST_PROXY: "10.0.0.0/8" }).CAIRN_TRUST_PROXY).toBe(
      "10.0.0.0/8",
    );
    expect(
      parseEnv(gatewayEnvSchema, { CAIRN_ALLOWED_HOSTS: "cairn.example.com, mcp.example.com:8443" })
        .CAIRN_ALLOWED_HOSTS,
    ).toEqual(["cairn.example.com", "mcp.example.com:8443"]);
  });

  it("keeps the state its copies share in the services' Redis under its own prefix", () => {
    const env = parseEnv(gatewayEnvSchema, {});
    expect(env.CAIRN_REDIS_URL).toBe("redis://127.0.0.1:56379");
    expect(env.CAIRN_GATEWAY_REDIS_PREFIX).toBe("cairn:gateway:");
    expect(() => parseEnv(gatewayEnvSchema, { CAIRN_GATEWAY_REDIS_PREFIX: "" })).toThrow(
      /CAIRN_GATEWAY_REDIS_PREFIX/,
    );
  });
});
