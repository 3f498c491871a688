import { describe, expect, it } from "vitest";
import {
  ClusterRoutesError,
  createRoutePassword,
  natsClusterRoutesConfig,
  natsRouteUser,
  parseRouteAddresses,
} from "./nats-cluster-routes.ts";

describe("natsClusterRoutesConfig", () => {
  const password = createRoutePassword();

  it("requires the password on routes, and presents it on every route a node opens", () => {
    const config = natsClusterRoutesConfig({
      password,
      routes: ["nats-1:6222", "nats-2:6222", "nats-3:6222"],
    });
    expect(config).toContain(`authorization {\n  user: "${natsRouteUser}"\n  password: "${password}"\n}`);
    const routes = [...config.matchAll(/"nats-route:\/\/([^"]+)"/g)].map((m) => m[1]);
    expect(routes).toEqual([
      `${natsRouteUser}:${password}@nats-1:6222`,
      `${natsRouteUser}:${password}@nats-2:6222`,
      `${natsRouteUser}:${password}@nats-3:6222`,
    ]);
  });

  it("makes a new password each time, long enough and safe in a URL", () => {
    const other = createRoutePassword();
    expect(other).not.toBe(password);
    expect(other).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses a password that is short or would need quoting", () => {
    expect(() => natsClusterRoutesConfig({ password: "secret", routes: ["nats-1:6222"] })).toThrow(
      ClusterRoutesError,
    );
    expect(() => natsClusterRoutesConfig({ password: `${password}@x`, routes: ["nats-1:6222"] })).toThrow(
      /at least 32 hex digits/,
    );
  });
});

describe("parseRouteAddresses", () => {
  it("reads a comma-separated host:port list", () => {
    expect(parseRouteAddresses(" nats-1:6222, nats-2.internal:6222,10.0.0.3:7222 ")).toEqual([
      "nats-1:6222",
      "nats-2.internal:6222",
      "10.0.0.3:7222",
    ]);
  });

  it.each([
    ["", /no cluster routes given/],
    ["nats-1", /not a route address: "nats-1"/],
    ["nats-1:0", /not a route address/],
    ["nats-1:70000", /not a route address/],
    ["nats://nats-1:6222", /not a route address/],
    ["user:pw@nats-1:6222", /not a route address/],
  ])("refuses %j with a stable code", (list, message) => {
    expect(() => parseRouteAddresses(list)).toThrow(message);
    try {
      parseRouteAddresses(list);
    } catch (error) {
      expect((error as ClusterRoutesError).code).toBe("cluster_routes_invalid");
    }
  });
});
