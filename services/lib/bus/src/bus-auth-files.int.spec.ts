// The files the bus-credentials job writes, on a real file system: the route password of a
// cluster is made once and kept (every node must present the same one), readable only by its
// owner, and a bad route list is refused before anything is written.
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeBusAuthFiles } from "./bus-auth-files.ts";

const dirs: string[] = [];
async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "cairn-bus-auth-"));
  dirs.push(dir);
  return join(dir, "auth");
}

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("writeBusAuthFiles with cluster routes", () => {
  const routes = ["nats-1:6222", "nats-2:6222", "nats-3:6222"];

  it("writes the routes with a route password made once and kept", async () => {
    const dir = await freshDir();
    const first = await writeBusAuthFiles(dir, { clusterRoutes: routes });
    expect(first.createdRoutePassword).toBe(true);
    expect(first.clusterConfigFile).toBe(join(dir, "nats-cluster.conf"));
    const password = (await readFile(join(dir, "nats-route.password"), "utf8")).trim();
    const config = await readFile(join(dir, "nats-cluster.conf"), "utf8");
    for (const route of routes) expect(config).toContain(`"nats-route://cairn-route:${password}@${route}"`);

    // Again, with a route added: the same password, the new list.
    const second = await writeBusAuthFiles(dir, { clusterRoutes: [...routes, "nats-4:6222"] });
    expect(second.createdRoutePassword).toBe(false);
    expect(second.created).toEqual([]);
    expect((await readFile(join(dir, "nats-route.password"), "utf8")).trim()).toBe(password);
    expect(await readFile(join(dir, "nats-cluster.conf"), "utf8")).toContain(`@nats-4:6222"`);
  });

  it("keeps the password and the routes file readable by their owner only", async () => {
    const dir = await freshDir();
    await writeBusAuthFiles(dir, { clusterRoutes: routes });
    expect((await stat(join(dir, "nats-route.password"))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, "nats-cluster.conf"))).mode & 0o777).toBe(0o600);
  });

  it("writes no cluster files without routes", async () => {
    const dir = await freshDir();
    const files = await writeBusAuthFiles(dir);
    expect(files.clusterConfigFile).toBeUndefined();
    expect((await readdir(dir)).filter((name) => name.startsWith("nats-"))).toEqual([
      "nats-authorization.conf",
    ]);
  });

  it("refuses a bad route list before writing anything", async () => {
    const dir = await freshDir();
    await expect(writeBusAuthFiles(dir, { clusterRoutes: ["nats-1:6222", "nats-2"] })).rejects.toMatchObject({
      code: "cluster_routes_invalid",
    });
    await expect(readdir(dir)).rejects.toMatchObject({ code: "ENOENT" });
  });
});
