// Checks the team deployments (docker-compose.yml, docker-compose.cluster.yml and
// infra/compose/) without a Docker engine: Debian's docker-compose 1.29 validates and
// normalises each file (`config`), and the test reads the normalised form, so what is asserted
// is what compose would run. The collector, Prometheus and Grafana files are read directly, and
// the dashboard's PromQL may only name metrics listed in infra/compose/grafana/metric-names.json.
// Each NATS service's command and configuration go through nats-server 2.10's own check (`-t`),
// with the authorization files the bus-credentials job writes, and the proxy's through
// `haproxy -c`.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writeBusAuthFiles } from "@cairn/bus";
import { ingestEnvSchema } from "@cairn/ingest";
import { parseEnv } from "@cairn/service-runtime";
import { checkedNatsServerPath } from "@cairn/testing";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { metricNamesIn } from "../helpers/prometheus-text.ts";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const composeFile = "docker-compose.yml";
const clusterFile = "docker-compose.cluster.yml";
/** What a team sets before running the cluster file (its Postgres and Redis are its own). */
const clusterEnv = {
  CAIRN_DATABASE_URL: "postgres://cairn:secret@db.internal:5432/cairn",
  CAIRN_REDIS_URL: "redis://redis.internal:6379",
};

const cairnServices = ["ingest", "search", "ranking", "maintenance", "gateway"] as const;
const requiredServices = [
  ...cairnServices,
  "migrate",
  "postgres",
  "redis",
  "nats",
  "otel-collector",
  "jaeger",
  "prometheus",
  "grafana",
];
/** The only services reachable from the host, with the container port each publishes. */
const publishedContainerPorts: Record<string, number> = { gateway: 8080, grafana: 3000, jaeger: 16686 };
const namedVolumes = {
  postgres: "postgres-data",
  redis: "redis-data",
  nats: "nats-data",
  grafana: "grafana-data",
};

describe("docker-compose.yml", () => {
  it("passes `docker-compose config -q`", () => {
    const result = runDockerCompose(["-f", composeFile, "config", "-q"]);
    expect(result.status, result.stderr).toBe(0);
  });

  it("declares the Cairn services, the migrate job and the infrastructure", () => {
    const services = Object.keys(composeConfig().services);
    for (const name of requiredServices) expect(services, `service ${name}`).toContain(name);
  });

  it("publishes ports only for gateway, grafana and the jaeger UI", () => {
    const { services } = composeConfig();
    const publishing = Object.entries(services)
      .filter(([, service]) => asArray(service.ports).length > 0)
      .map(([name]) => name)
      .sort();
    expect(publishing).toEqual(Object.keys(publishedContainerPorts).sort());
    for (const [name, port] of Object.entries(publishedContainerPorts)) {
      expect(asArray(services[name]?.ports).map(containerPortOf), `${name} ports`).toContain(port);
    }
  });

  it.each(cairnServices)(
    "%s runs from the app image with a health check and conditional dependencies",
    (name) => {
      const service = serviceNamed(name);
      expect(service.build, `${name} build`).toBeDefined();
      expect(service.command).toEqual(["node", `services/${name}/src/main.ts`]);

      const healthcheck = asRecord(service.healthcheck);
      expect(healthcheck.disable, `${name} healthcheck disabled`).not.toBe(true);
      expect(asArray(healthcheck.test).length, `${name} healthcheck test`).toBeGreaterThan(0);
      if (name !== "gateway") {
        expect(healthcheck.test).toEqual([
          "CMD",
          "node",
          "services/lib/service-runtime/src/healthcheck.ts",
          name,
        ]);
      }

      expect(dependencyConditions(service)).toEqual({
        postgres: "service_healthy",
        redis: "service_healthy",
        nats: "service_healthy",
        migrate: "service_completed_successfully",
      });

      const env = environmentOf(service);
      expect(env.CAIRN_DATABASE_URL).toMatch(/^postgres:\/\/[^@]+@postgres:5432\/\w+$/);
      expect(env.CAIRN_REDIS_URL).toBe("redis://redis:6379");
      expect(env.CAIRN_NATS_URL).toBe("nats://nats:4222");
      expect(env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe("http://otel-collector:4318");
      expect(env.OTEL_SERVICE_NAME).toBe(`cairn-${name}`);
      expect(env.CAIRN_METRICS_PORT).toBe("9464");
    },
  );

  it("gateway listens on 0.0.0.0:8080 and takes the admin key from the environment", () => {
    const env = environmentOf(serviceNamed("gateway"));
    expect(env.CAIRN_HOST).toBe("0.0.0.0");
    expect(env.CAIRN_PORT).toBe("8080");
    expect(env).toHaveProperty("CAIRN_ADMIN_KEY");
  });

  it("migrate is a one-shot job after postgres is healthy", () => {
    const migrate = serviceNamed("migrate");
    expect(migrate.build).toBeDefined();
    expect(migrate.image).toBe(serviceNamed("ingest").image);
    expect(migrate.command).toEqual(["node", "scripts/migrate.ts"]);
    expect(migrate.restart).toBe("no");
    expect(dependencyConditions(migrate)).toEqual({ postgres: "service_healthy" });
  });

  it("keeps postgres, redis, nats and grafana data in named volumes", () => {
    const config = composeConfig();
    for (const [service, volume] of Object.entries(namedVolumes)) {
      expect(Object.keys(config.volumes), "top-level volumes").toContain(volume);
      const sources = asArray(serviceNamed(service).volumes).map((v) => mountOf(v).source);
      expect(sources, `${service} volumes`).toContain(volume);
    }
  });
});

describe.each([composeFile, clusterFile])("%s", (file) => {
  const config = () => (file === clusterFile ? composeConfig(clusterFile, clusterEnv) : composeConfig());

  it("waits as healthy only on services with a health check", () => {
    const { services } = config();
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, condition] of Object.entries(dependencyConditions(service))) {
        if (condition !== "service_healthy") continue;
        const healthcheck = asRecord(services[dependency]?.healthcheck);
        expect(
          asArray(healthcheck.test).length,
          `${name} waits for ${dependency} to be healthy`,
        ).toBeGreaterThan(0);
      }
    }
  });

  it("bind-mounts only files and folders that exist in the repository", () => {
    for (const [name, service] of Object.entries(config().services)) {
      for (const mount of asArray(service.volumes).map(mountOf)) {
        if (mount.type !== "bind") continue;
        expect(existsSync(mount.source), `${name} mounts ${mount.source}`).toBe(true);
      }
    }
  });

  it("runs NATS with a command and configuration nats-server 2.10 accepts", async () => {
    const { services } = config();
    const natsServices = Object.entries(services).filter(([, service]) =>
      String(service.image).startsWith("nats:"),
    );
    expect(natsServices.length).toBeGreaterThan(0);
    const dir = await mkdtemp(join(tmpdir(), "cairn-compose-nats-"));
    try {
      // The authorization files as the one-shot job writes them into the nats-auth volume.
      await writeBusAuthFiles(
        join(dir, "auth"),
        busCredentialsJobOptions(serviceIn(config(), "bus-credentials")),
      );
      for (const [name, service] of natsServices) {
        const mounts = asArray(service.volumes).map(mountOf);
        const conf = mounts.find((m) => m.target === "/etc/nats/nats.conf");
        expect(conf?.type, `${name} mounts its nats.conf`).toBe("bind");
        expect(mounts.find((m) => m.target === "/etc/nats/auth")?.source, `${name} mounts the bus auth`).toBe(
          "nats-auth",
        );
        await copyFile(conf?.source as string, join(dir, "nats.conf"));
        const args = asArray(service.command).map((arg) =>
          arg === "/etc/nats/nats.conf" ? join(dir, "nats.conf") : String(arg),
        );
        const check = spawnSync(checkedNatsServerPath(), [...args, "-t"], {
          encoding: "utf8",
          timeout: 30_000,
        });
        expect(
          check.status,
          `${name}: nats-server ${args.join(" ")} -t\n${check.stderr}${check.stdout}`,
        ).toBe(0);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("docker-compose.cluster.yml", () => {
  const cluster = () => composeConfig(clusterFile, clusterEnv);
  const copiesOf = (name: string) => [`${name}-1`, `${name}-2`];
  const natsNodes = ["nats-1", "nats-2", "nats-3"];

  it("passes `docker-compose config -q` with the database and Redis URLs set", () => {
    const result = runDockerCompose(["-f", clusterFile, "config", "-q"], clusterEnv);
    expect(result.status, result.stderr).toBe(0);
  });

  it.each(Object.keys(clusterEnv))("refuses to start without %s, and says what to set", (variable) => {
    const result = runDockerCompose(["-f", clusterFile, "config", "-q"], {
      ...clusterEnv,
      [variable]: undefined,
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`set ${variable} to the`);
  });

  it("has no Postgres or Redis of its own: every service uses the URLs it is given", () => {
    const { services } = cluster();
    for (const [name, service] of Object.entries(services)) {
      expect(String(service.image), name).not.toMatch(/postgres|pgvector|redis/);
      const env = environmentOf(service);
      if ("CAIRN_DATABASE_URL" in env)
        expect(env.CAIRN_DATABASE_URL, name).toBe(clusterEnv.CAIRN_DATABASE_URL);
      if ("CAIRN_REDIS_URL" in env) expect(env.CAIRN_REDIS_URL, name).toBe(clusterEnv.CAIRN_REDIS_URL);
    }
    expect(environmentOf(serviceIn(cluster(), "migrate")).CAIRN_DATABASE_URL).toBe(
      clusterEnv.CAIRN_DATABASE_URL,
    );
  });

  it("runs two copies of every service, each named, and no other", () => {
    const names = Object.keys(cluster().services);
    for (const name of cairnServices) {
      expect(names.filter((n) => n === name || n.startsWith(`${name}-`)).sort(), name).toEqual(
        copiesOf(name),
      );
      for (const copy of copiesOf(name)) {
        expect(environmentOf(serviceIn(cluster(), copy)).CAIRN_INSTANCE, copy).toBe(copy);
      }
    }
  });

  it.each(cairnServices)("each %s copy runs as the single-machine service does", (name) => {
    const single = serviceNamed(name);
    const expected = withoutDeploymentEnv(environmentOf(single));
    for (const copy of copiesOf(name)) {
      const service = serviceIn(cluster(), copy);
      expect(service.image, copy).toBe(single.image);
      expect(service.build, copy).toEqual(single.build);
      expect(service.command, copy).toEqual(single.command);
      expect(asRecord(service.healthcheck).test, copy).toEqual(asRecord(single.healthcheck).test);
      expect(asArray(service.volumes).map(mountOf), copy).toEqual(asArray(single.volumes).map(mountOf));
      expect(withoutDeploymentEnv(environmentOf(service)), copy).toEqual(expected);
    }
  });

  it("starts the services once all three NATS nodes are healthy and the migrations ran", () => {
    for (const name of cairnServices) {
      for (const copy of copiesOf(name)) {
        const service = serviceIn(cluster(), copy);
        expect(dependencyConditions(service), copy).toEqual({
          "nats-1": "service_healthy",
          "nats-2": "service_healthy",
          "nats-3": "service_healthy",
          migrate: "service_completed_successfully",
        });
        expect(String(environmentOf(service).CAIRN_NATS_URL).split(","), copy).toEqual(
          natsNodes.map((node) => `nats://${node}:4222`),
        );
      }
    }
  });

  it("runs NATS as three JetStream nodes, each named, with a volume of its own and routes to the others", () => {
    const { services } = cluster();
    const nodes = Object.entries(services).filter(([, service]) => String(service.image).startsWith("nats:"));
    expect(nodes.map(([name]) => name).sort()).toEqual(natsNodes);
    const dataVolumes = new Set<string>();
    for (const [name, service] of nodes) {
      expect(service.image).toBe(serviceNamed("nats").image);
      const command = asArray(service.command).map(String);
      expect(command[command.indexOf("-n") + 1], `${name} server_name`).toBe(name);
      const data = asArray(service.volumes)
        .map(mountOf)
        .find((m) => m.target === "/data");
      expect(data?.type, `${name} data`).toBe("volume");
      dataVolumes.add(data?.source as string);
      expect(dependencyConditions(service)).toEqual({ "bus-credentials": "service_completed_successfully" });
      expect(asArray(asRecord(service.healthcheck).test).join(" ")).toContain(
        "http://127.0.0.1:8222/healthz",
      );
    }
    expect(dataVolumes.size).toBe(3);
    for (const volume of dataVolumes) expect(Object.keys(cluster().volumes)).toContain(volume);

    // Every node routes to all three (the job writes the routes the nodes include).
    const routes = busCredentialsJobOptions(serviceIn(cluster(), "bus-credentials")).clusterRoutes;
    expect(routes).toEqual(natsNodes.map((node) => `${node}:6222`));
    const conf = readRepoFile("infra/compose/nats/nats-cluster.conf");
    expect(conf).toMatch(
      /cluster\s*\{[^}]*listen:\s*0\.0\.0\.0:6222[^}]*include "auth\/nats-cluster\.conf"[^}]*\}/,
    );
    expect(conf).toMatch(/jetstream\s*\{[^}]*store_dir:\s*\/data[^}]*\}/);
    expect(conf).toMatch(/jetstream\s*\{[^}]*sync_interval:\s*always[^}]*\}/);
    expect(conf).toMatch(/^include "auth\/nats-authorization\.conf"$/m);
  });

  it("keeps the event stream on three servers: every ingest copy's replica setting is 3", () => {
    for (const copy of copiesOf("ingest")) {
      const env = environmentOf(serviceIn(cluster(), copy));
      expect(env.CAIRN_EVENT_STREAM_REPLICAS, copy).toBe("3");
      expect(parseEnv(ingestEnvSchema, env as NodeJS.ProcessEnv).CAIRN_EVENT_STREAM_REPLICAS).toBe(3);
    }
  });

  it("publishes ports only for the proxy, grafana and the jaeger UI", () => {
    const { services } = cluster();
    const published: Record<string, number> = { proxy: 8080, grafana: 3000, jaeger: 16686 };
    const publishing = Object.entries(services)
      .filter(([, service]) => asArray(service.ports).length > 0)
      .map(([name]) => name)
      .sort();
    expect(publishing).toEqual(Object.keys(published).sort());
    for (const [name, port] of Object.entries(published)) {
      expect(asArray(services[name]?.ports).map(containerPortOf), `${name} ports`).toEqual([port]);
    }
  });

  it("puts both gateway copies behind the proxy, each health-checked, and trusts only the address the proxy sets", () => {
    const proxy = serviceIn(cluster(), "proxy");
    const mount = asArray(proxy.volumes)
      .map(mountOf)
      .find((m) => m.target === "/usr/local/etc/haproxy");
    expect(mount?.source).toBe(join(repoRoot, "infra/compose/cluster/haproxy"));
    const cfg = readRepoFile("infra/compose/cluster/haproxy/haproxy.cfg");
    const backend = haproxySection(cfg, "backend gateways");
    const servers = backend
      .filter((line) => line.startsWith("server "))
      .map((line) => line.split(/\s+/).slice(1, 3));
    expect(servers).toEqual(copiesOf("gateway").map((copy) => [copy, `${copy}:8080`]));
    expect(backend).toContain("option httpchk");
    expect(backend).toContain("http-check send meth GET uri /healthz");
    expect(backend.find((line) => line.startsWith("default-server"))).toMatch(/\bcheck\b/);
    expect(haproxySection(cfg, "frontend cairn")).toContain("http-request set-header X-Forwarded-For %[src]");
    for (const copy of copiesOf("gateway")) {
      const env = environmentOf(serviceIn(cluster(), copy));
      expect(env.CAIRN_PORT).toBe("8080");
      expect(env.CAIRN_TRUST_PROXY).toBe("true");
    }
  });

  it("the proxy's configuration passes `haproxy -c`, and its outage pages are problem+json with Retry-After", () => {
    const check = runHaproxyCheck(join(repoRoot, "infra/compose/cluster/haproxy/haproxy.cfg"));
    expect(check.status, check.output).toBe(0);
    // Locally the copies' names do not resolve; that is the only warning allowed.
    const warnings = check.output.split("\n").filter((line) => line.includes("[WARNING]"));
    for (const warning of warnings) expect(warning).toMatch(/could not resolve address 'gateway-[12]'/);
    for (const status of [503, 504]) {
      const page = readRepoFile(`infra/compose/cluster/haproxy/errors/${status}.http`);
      const [head = "", body = ""] = page.split("\r\n\r\n");
      expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(head).toContain("Content-Type: application/problem+json");
      expect(head).toMatch(/Retry-After: \d+/);
      expect(JSON.parse(body)).toMatchObject({ status, code: status === 503 ? "unavailable" : "timeout" });
    }
  });

  it("Prometheus scrapes every copy of every service, and the collector", () => {
    const prometheus = serviceIn(cluster(), "prometheus");
    const mount = asArray(prometheus.volumes)
      .map(mountOf)
      .find((m) => m.target === "/etc/prometheus/prometheus.yml");
    expect(mount?.source).toBe(join(repoRoot, "infra/compose/cluster/prometheus.yml"));
    const config = asRecord(parseYaml(readRepoFile("infra/compose/cluster/prometheus.yml")));
    const targets = asArray(config.scrape_configs).flatMap((job) => scrapeTargets(asRecord(job)));
    for (const name of ["ingest", "search", "ranking", "maintenance"]) {
      for (const copy of copiesOf(name)) expect(targets).toContain(`${copy}:9464`);
    }
    for (const copy of copiesOf("gateway")) expect(targets).toContain(`${copy}:8080`);
    expect(targets).toContain("otel-collector:8889");
  });

  it("runs the collector, Jaeger and Grafana as the single-machine file does", () => {
    for (const name of ["otel-collector", "jaeger", "grafana"]) {
      const service = serviceIn(cluster(), name);
      const single = serviceNamed(name);
      expect(service.image, name).toBe(single.image);
      expect(asArray(service.volumes).map(mountOf), name).toEqual(asArray(single.volumes).map(mountOf));
      expect(environmentOf(service), name).toEqual(environmentOf(single));
    }
  });
});

describe("infra/compose", () => {
  it("nats.conf enables JetStream with fsync on every write and monitoring on 8222", () => {
    const conf = readRepoFile("infra/compose/nats/nats.conf");
    expect(conf).toMatch(/^\s*http_port:\s*8222\s*$/m);
    expect(conf).toMatch(/jetstream\s*\{[^}]*store_dir:\s*\/data[^}]*\}/);
    expect(conf).toMatch(/jetstream\s*\{[^}]*sync_interval:\s*always[^}]*\}/);
  });

  it("the collector receives OTLP, sends traces to Jaeger and exposes metrics on 8889", () => {
    const collector = asRecord(parseYaml(readRepoFile("infra/compose/otel-collector.yaml")));
    const otlp = asRecord(asRecord(asRecord(collector.receivers).otlp).protocols);
    expect(Object.keys(otlp).sort()).toEqual(["grpc", "http"]);

    const exporters = asRecord(collector.exporters);
    expect(asRecord(exporters["otlp/jaeger"]).endpoint).toBe("jaeger:4317");
    expect(asRecord(asRecord(exporters["otlp/jaeger"]).tls).insecure).toBe(true);
    expect(asRecord(exporters.prometheus).endpoint).toBe("0.0.0.0:8889");

    const pipelines = asRecord(asRecord(collector.service).pipelines);
    expect(asRecord(pipelines.traces).exporters).toContain("otlp/jaeger");
    expect(asRecord(pipelines.metrics).exporters).toContain("prometheus");
    // Every component a pipeline names is defined (the collector refuses to start otherwise).
    for (const [pipeline, body] of Object.entries(pipelines)) {
      for (const kind of ["receivers", "processors", "exporters"] as const) {
        for (const component of asArray(asRecord(body)[kind])) {
          expect(asRecord(collector[kind]), `${pipeline} ${kind}`).toHaveProperty([String(component)]);
        }
      }
    }
  });

  it("Prometheus scrapes every service's metrics port and the collector", () => {
    const prometheus = asRecord(parseYaml(readRepoFile("infra/compose/prometheus.yml")));
    const targets = asArray(prometheus.scrape_configs).flatMap((job) => scrapeTargets(asRecord(job)));
    for (const name of ["ingest", "search", "ranking", "maintenance"])
      expect(targets).toContain(`${name}:9464`);
    expect(targets).toContain("gateway:8080");
    expect(targets).toContain("otel-collector:8889");
  });

  it("Grafana provisions Prometheus (default) and Jaeger, and the dashboards folder", () => {
    const datasources = asArray(
      asRecord(parseYaml(readRepoFile("infra/compose/grafana/provisioning/datasources/datasources.yaml")))
        .datasources,
    ).map(asRecord);
    const byUid = new Map(datasources.map((d) => [d.uid, d]));
    expect(byUid.get("prometheus")).toMatchObject({ type: "prometheus", isDefault: true });
    expect(byUid.get("jaeger")).toMatchObject({ type: "jaeger" });

    const providers = asArray(
      asRecord(parseYaml(readRepoFile("infra/compose/grafana/provisioning/dashboards/dashboards.yaml")))
        .providers,
    ).map(asRecord);
    const paths = providers.map((p) => asRecord(p.options).path);
    expect(paths).toContain("/var/lib/grafana/dashboards");

    const grafanaMounts = asArray(serviceNamed("grafana").volumes).map(mountOf);
    const dashboards = grafanaMounts.find((m) => m.target === "/var/lib/grafana/dashboards");
    expect(dashboards?.source).toBe(join(repoRoot, "infra/compose/grafana/dashboards"));
    const environment = environmentOf(serviceNamed("grafana"));
    expect(environment.GF_AUTH_ANONYMOUS_ENABLED).toBe("true");
    expect(environment.GF_AUTH_ANONYMOUS_ORG_ROLE).toBe("Admin");
  });
});

describe("grafana dashboard cairn.json", () => {
  const dashboard = asRecord(JSON.parse(readRepoFile("infra/compose/grafana/dashboards/cairn.json")));
  const panels = flattenPanels(asArray(dashboard.panels)).filter((p) => p.type !== "row");
  const expressions = panels.flatMap((p) => asArray(p.targets).map((t) => String(asRecord(t).expr ?? "")));
  const allowed = allowedSeriesNames();

  it("is the Cairn dashboard", () => {
    expect(dashboard.uid).toBe("cairn");
    expect(dashboard.title).toBe("Cairn");
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(panels.length).toBeGreaterThan(0);
  });

  it("queries Prometheus (uid prometheus) from every panel", () => {
    for (const panel of panels) {
      expect(asRecord(panel.datasource).uid, String(panel.title)).toBe("prometheus");
      expect(asArray(panel.targets).length, String(panel.title)).toBeGreaterThan(0);
      for (const target of asArray(panel.targets)) {
        expect(String(asRecord(target).expr ?? "").trim(), String(panel.title)).not.toBe("");
      }
    }
  });

  it("names only listed cairn_ metrics in its PromQL", () => {
    for (const expr of expressions) {
      for (const name of expr.match(/cairn_[a-z0-9_]+/g) ?? []) expect(allowed, expr).toContain(name);
      for (const name of metricNamesIn(expr)) {
        expect(name, expr).toMatch(/^cairn_/);
        expect(allowed, expr).toContain(name);
      }
    }
  });

  it("shows every listed metric", () => {
    const used = new Set(expressions.flatMap(metricNamesIn).map(familyOf));
    const listed = metricNameList();
    for (const name of [...listed.counters, ...listed.gauges, ...listed.histograms]) {
      expect(used, `no panel queries ${name}`).toContain(name);
    }
  });
});

// ---------------------------------------------------------------------------------------------

type Service = Record<string, unknown>;
type ComposeConfig = { services: Record<string, Service>; volumes: Record<string, unknown> };

const cachedConfigs = new Map<string, ComposeConfig>();

/** The configuration as docker-compose normalises it (interpolated, anchors merged, long forms). */
function composeConfig(file = composeFile, env: Record<string, string> = {}): ComposeConfig {
  const cached = cachedConfigs.get(file);
  if (cached) return cached;
  const result = runDockerCompose(["-f", file, "config"], env);
  if (result.status !== 0) throw new Error(`docker-compose -f ${file} config failed:\n${result.stderr}`);
  const parsed = asRecord(parseYaml(result.stdout));
  const config = {
    services: asRecord(parsed.services) as Record<string, Service>,
    volumes: asRecord(parsed.volumes),
  };
  cachedConfigs.set(file, config);
  return config;
}

/**
 * Runs docker-compose with `env` over this process's environment; a variable set to undefined
 * is removed, so a setting of the machine running the tests does not leak in.
 */
function runDockerCompose(
  args: string[],
  env: Record<string, string | undefined> = {},
): { status: number | null; stdout: string; stderr: string } {
  const merged: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ["CAIRN_DATABASE_URL", "CAIRN_REDIS_URL"]) delete merged[key];
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete merged[key];
    else merged[key] = value;
  }
  const result = spawnSync("docker-compose", args, {
    cwd: repoRoot,
    encoding: "utf8",
    timeout: 60_000,
    env: merged,
  });
  if (result.error) {
    if ((result.error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new Error(
        "docker-compose is not installed: install the Debian package `docker-compose` " +
          "(apt-get install docker-compose; infra/local/install-packages.sh installs it too)",
      );
    }
    throw result.error;
  }
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function serviceNamed(name: string): Service {
  return serviceIn(composeConfig(), name);
}

function serviceIn(config: ComposeConfig, name: string): Service {
  const service = config.services[name];
  if (!service) throw new Error(`no service ${name} (services: ${Object.keys(config.services).join(", ")})`);
  return service;
}

/** A service's environment without what differs by deployment: where things are, and which copy. */
function withoutDeploymentEnv(env: Record<string, string>): Record<string, string> {
  const {
    CAIRN_DATABASE_URL: _database,
    CAIRN_REDIS_URL: _redis,
    CAIRN_NATS_URL: _nats,
    CAIRN_INSTANCE: _instance,
    CAIRN_EVENT_STREAM_REPLICAS: _replicas,
    CAIRN_TRUST_PROXY: _trustProxy,
    ...rest
  } = env;
  return rest;
}

/** What the one-shot bus-credentials job is told to write (its command's options). */
function busCredentialsJobOptions(job: Service): { clusterRoutes?: string[] } {
  const command = asArray(job.command).map(String);
  const script = command.indexOf("services/lib/bus/src/write-bus-auth.ts");
  expect(script, "bus-credentials runs write-bus-auth.ts").toBeGreaterThan(-1);
  const { values } = parseArgs({
    args: command.slice(script + 1),
    allowPositionals: true,
    options: { owner: { type: "string" }, "cluster-routes": { type: "string" } },
  });
  const routes = values["cluster-routes"];
  return routes === undefined ? {} : { clusterRoutes: routes.split(",") };
}

/** The lines of one section of an HAProxy configuration (`backend gateways`), trimmed. */
function haproxySection(cfg: string, header: string): string[] {
  const lines = cfg.split("\n");
  const start = lines.findIndex((line) => line.trim() === header);
  if (start === -1) throw new Error(`no section "${header}" in the HAProxy configuration`);
  const body: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break;
    const trimmed = line.trim();
    if (trimmed !== "" && !trimmed.startsWith("#")) body.push(trimmed);
  }
  return body;
}

function runHaproxyCheck(cfg: string): { status: number | null; output: string } {
  const result = spawnSync("haproxy", ["-c", "-f", cfg], { encoding: "utf8", timeout: 30_000 });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") {
    throw new Error(
      "haproxy is not installed: install the Debian package `haproxy` " +
        "(apt-get install haproxy; infra/local/install-packages.sh installs it too)",
    );
  }
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function dependencyConditions(service: Service): Record<string, string> {
  const dependsOn = service.depends_on;
  if (Array.isArray(dependsOn)) return Object.fromEntries(dependsOn.map((d) => [String(d), "(none)"]));
  return Object.fromEntries(
    Object.entries(asRecord(dependsOn)).map(([name, d]) => [name, String(asRecord(d).condition ?? "(none)")]),
  );
}

function environmentOf(service: Service): Record<string, string> {
  const env = service.environment;
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((line) => {
        const [key, ...value] = String(line).split("=");
        return [key, value.join("=")];
      }),
    );
  }
  return Object.fromEntries(Object.entries(asRecord(env)).map(([k, v]) => [k, v == null ? "" : String(v)]));
}

/** Container port of a `ports` entry: short form ("[ip:]host:container[/proto]") or long form. */
function containerPortOf(entry: unknown): number {
  if (typeof entry === "object" && entry !== null) return Number(asRecord(entry).target);
  const withoutProtocol = String(entry).split("/")[0] ?? "";
  return Number(withoutProtocol.split(":").at(-1));
}

/** A `volumes` entry in short ("source:target[:mode]") or long form. */
function mountOf(entry: unknown): { type: "bind" | "volume"; source: string; target: string } {
  if (typeof entry === "object" && entry !== null) {
    const mount = asRecord(entry);
    const source = String(mount.source ?? "");
    return { type: mount.type === "bind" ? "bind" : "volume", source, target: String(mount.target ?? "") };
  }
  const [source = "", target = ""] = String(entry).split(":");
  const isPath = source.startsWith("/") || source.startsWith(".");
  return { type: isPath ? "bind" : "volume", source, target };
}

function scrapeTargets(job: Record<string, unknown>): string[] {
  const statics = asArray(job.static_configs).flatMap((c) => asArray(asRecord(c).targets).map(String));
  const dns = asArray(job.dns_sd_configs).flatMap((c) => {
    const config = asRecord(c);
    return asArray(config.names).map((name) => `${String(name)}:${String(config.port)}`);
  });
  return [...statics, ...dns];
}

function flattenPanels(panels: unknown[]): Record<string, unknown>[] {
  return panels.map(asRecord).flatMap((p) => [p, ...flattenPanels(asArray(p.panels))]);
}

type MetricNameList = { counters: string[]; gauges: string[]; histograms: string[] };

function metricNameList(): MetricNameList {
  const list = asRecord(JSON.parse(readRepoFile("infra/compose/grafana/metric-names.json")));
  return {
    counters: asArray(list.counters).map(String),
    gauges: asArray(list.gauges).map(String),
    histograms: asArray(list.histograms).map(String),
  };
}

/** Series names PromQL may use: counters and gauges as listed, histograms by their series. */
function allowedSeriesNames(): string[] {
  const list = metricNameList();
  const histogramSeries = list.histograms.flatMap((h) => [`${h}_bucket`, `${h}_sum`, `${h}_count`]);
  return [...list.counters, ...list.gauges, ...histogramSeries];
}

function familyOf(seriesName: string): string {
  return seriesName.replace(/_(bucket|sum|count)$/, "");
}

function readRepoFile(path: string): string {
  return readFileSync(join(repoRoot, path), "utf8");
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
