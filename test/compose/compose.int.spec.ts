// Checks the team deployment (docker-compose.yml and infra/compose/) without a Docker engine:
// Debian's docker-compose 1.29 validates and normalises the file (`config`), and the test reads
// the normalised form, so what is asserted is what compose would run. The collector,
// Prometheus and Grafana files are read directly, and the dashboard's PromQL may only name
// metrics listed in infra/compose/grafana/metric-names.json.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { metricNamesIn } from "../helpers/prometheus-text.ts";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const composeFile = "docker-compose.yml";

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

  it("every service another waits on as healthy has a health check", () => {
    const { services } = composeConfig();
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

  it("keeps postgres, redis, nats and grafana data in named volumes", () => {
    const config = composeConfig();
    for (const [service, volume] of Object.entries(namedVolumes)) {
      expect(Object.keys(config.volumes), "top-level volumes").toContain(volume);
      const sources = asArray(serviceNamed(service).volumes).map((v) => mountOf(v).source);
      expect(sources, `${service} volumes`).toContain(volume);
    }
  });

  it("bind-mounts only files and folders that exist in the repository", () => {
    for (const [name, service] of Object.entries(composeConfig().services)) {
      for (const mount of asArray(service.volumes).map(mountOf)) {
        if (mount.type !== "bind") continue;
        expect(existsSync(mount.source), `${name} mounts ${mount.source}`).toBe(true);
      }
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

let cachedConfig: ComposeConfig | undefined;

/** The configuration as docker-compose normalises it (interpolated, anchors merged, long forms). */
function composeConfig(): ComposeConfig {
  if (cachedConfig) return cachedConfig;
  const result = runDockerCompose(["-f", composeFile, "config"]);
  if (result.status !== 0) throw new Error(`docker-compose config failed:\n${result.stderr}`);
  const parsed = asRecord(parseYaml(result.stdout));
  cachedConfig = {
    services: asRecord(parsed.services) as Record<string, Service>,
    volumes: asRecord(parsed.volumes),
  };
  return cachedConfig;
}

function runDockerCompose(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync("docker-compose", args, { cwd: repoRoot, encoding: "utf8", timeout: 60_000 });
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
  const service = composeConfig().services[name];
  if (!service) throw new Error(`docker-compose.yml has no service ${name}`);
  return service;
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
