import { readdir } from "node:fs/promises";
import { join, posix } from "node:path";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { PersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import {
  at,
  record,
  records,
  ROOT,
  secretFilePaths,
  validateWithCli,
  yamlDocuments,
} from "./deploy-files.js";

/**
 * deploy/kubernetes/base/ (what `kubectl apply -k deploy/kubernetes` applies): every document is validated against the Kubernetes API schemas
 * (kubernetes-models), then held to what running the connector needs (contract: one process per
 * state file, SIGTERM, `/healthz`, `/readyz`, `/metrics`, secrets as `_file`s).
 */

const DIR = join(ROOT, "deploy", "kubernetes", "base");

const MODELS: Record<string, (doc: Record<string, unknown>) => { validate(): void }> = {
  "apps/v1/Deployment": (doc) => new Deployment(doc),
  "v1/ConfigMap": (doc) => new ConfigMap(doc),
  "v1/Secret": (doc) => new Secret(doc),
  "v1/Service": (doc) => new Service(doc),
  "v1/PersistentVolumeClaim": (doc) => new PersistentVolumeClaim(doc),
};

async function manifests(): Promise<Array<{ file: string; doc: Record<string, unknown> }>> {
  const files = (await readdir(DIR)).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml");
  const out: Array<{ file: string; doc: Record<string, unknown> }> = [];
  for (const file of files.sort()) {
    for (const doc of await yamlDocuments(join(DIR, file))) out.push({ file, doc: record(doc) });
  }
  return out;
}

async function one(kind: string): Promise<Record<string, unknown>> {
  const found = (await manifests()).filter((m) => m.doc["kind"] === kind);
  expect(found, `exactly one ${kind}`).toHaveLength(1);
  return found[0]?.doc ?? {};
}

async function deployment(): Promise<{
  dep: Record<string, unknown>;
  pod: Record<string, unknown>;
  container: Record<string, unknown>;
}> {
  const dep = await one("Deployment");
  const pod = record(at(dep, "spec.template.spec"));
  const containers = records(pod["containers"]);
  expect(containers).toHaveLength(1);
  return { dep, pod, container: containers[0] ?? {} };
}

/** The connector's config, as the ConfigMap holds it. */
async function config(): Promise<{ text: string; parsed: unknown; key: string; name: string }> {
  const cm = await one("ConfigMap");
  const data = record(cm["data"]);
  const [key = "", text] = Object.entries(data)[0] ?? [];
  expect(typeof text).toBe("string");
  return { text: String(text), parsed: parse(String(text)), key, name: String(at(cm, "metadata.name")) };
}

function mountOf(container: Record<string, unknown>, volume: string): Record<string, unknown> {
  const mount = records(container["volumeMounts"]).find((m) => m["name"] === volume);
  expect(mount, `a volumeMount of volume ${volume}`).toBeDefined();
  return mount ?? {};
}

function volumeWith(pod: Record<string, unknown>, field: string, name: string): string {
  const volume = records(pod["volumes"]).find((v) => {
    const source = record(v[field]);
    return source["name"] === name || source["claimName"] === name || source["secretName"] === name;
  });
  expect(volume, `a ${field} volume for ${name}`).toBeDefined();
  return String(volume?.["name"]);
}

/** "768Mi" → bytes. */
function bytes(quantity: unknown): number {
  const m = /^(\d+)(Ki|Mi|Gi)?$/.exec(String(quantity));
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 }[m?.[2] ?? ""] ?? 1;
  return m ? Number(m[1]) * unit : NaN;
}

describe("deploy/kubernetes", () => {
  it("every document is a valid Kubernetes object of a known kind (API schema validation)", async () => {
    const all = await manifests();
    expect(all.length).toBeGreaterThanOrEqual(5);
    for (const { file, doc } of all) {
      const key = `${String(doc["apiVersion"])}/${String(doc["kind"])}`;
      const model = MODELS[key];
      expect(model, `${file}: ${key}`).toBeDefined();
      expect(() => model?.(doc).validate(), `${file}: ${key}`).not.toThrow();
    }
  });

  it("kustomization.yaml lists every manifest except the example Secret", async () => {
    const [kustomization] = await yamlDocuments(join(DIR, "kustomization.yaml"));
    const resources = at(kustomization, "resources");
    const listed = Array.isArray(resources) ? resources.map(String) : [];
    const files = (await readdir(DIR)).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml");
    expect([...listed].sort()).toEqual(files.filter((f) => f !== "secret.example.yaml").sort());
  });

  it("one process per state file (contract): replicas 1 and the Recreate strategy", async () => {
    const { dep } = await deployment();
    expect(at(dep, "spec.replicas")).toBe(1);
    expect(at(dep, "spec.strategy.type")).toBe("Recreate");
  });

  it("runs as the image's non-root uid 1000, with fsGroup so that a fresh volume is writable", async () => {
    const { pod, container } = await deployment();
    expect(at(pod, "securityContext.runAsNonRoot")).toBe(true);
    expect(at(pod, "securityContext.runAsUser")).toBe(1000);
    expect(at(pod, "securityContext.fsGroup")).toBe(1000);
    expect(at(container, "securityContext.allowPrivilegeEscalation")).toBe(false);
    expect(at(container, "securityContext.capabilities.drop")).toEqual(["ALL"]);
  });

  it("the state file is on the PVC, mounted where the config's state.path points", async () => {
    const { pod, container } = await deployment();
    const pvc = await one("PersistentVolumeClaim");
    expect(at(pvc, "spec.accessModes")).toEqual(["ReadWriteOnce"]);
    const volume = volumeWith(pod, "persistentVolumeClaim", String(at(pvc, "metadata.name")));
    const statePath = String(at((await config()).parsed, "state.path"));
    expect(posix.isAbsolute(statePath)).toBe(true);
    expect(mountOf(container, volume)["mountPath"]).toBe(posix.dirname(statePath));
  });

  it("the ConfigMap is mounted read-only where THREATBRIDGE_CONFIG points", async () => {
    const { pod, container } = await deployment();
    const cfg = await config();
    const volume = volumeWith(pod, "configMap", cfg.name);
    const mount = mountOf(container, volume);
    expect(mount["readOnly"]).toBe(true);
    const env = records(container["env"]).find((e) => e["name"] === "THREATBRIDGE_CONFIG");
    expect(env?.["value"]).toBe(posix.join(String(mount["mountPath"]), cfg.key));
  });

  it("secrets come from files of the Secret (contract: `_file` keys), never from the ConfigMap", async () => {
    const { pod, container } = await deployment();
    const cfg = await config();
    const secret = await one("Secret");
    const volume = volumeWith(pod, "secret", String(at(secret, "metadata.name")));
    const mountPath = String(mountOf(container, volume)["mountPath"]);
    const paths = secretFilePaths(cfg.text);
    expect(paths.length).toBeGreaterThanOrEqual(2);
    const keys = Object.keys(record(secret["stringData"]));
    for (const path of paths) {
      expect(posix.dirname(path)).toBe(mountPath);
      expect(keys).toContain(posix.basename(path));
    }
    for (const key of ["client_secret", "token", "private_key"]) {
      expect(cfg.text).not.toMatch(new RegExp(`^\\s*${key}:`, "m"));
    }
  });

  it("probes: liveness on /healthz and readiness on /readyz, on the config's health.port", async () => {
    const { container } = await deployment();
    const port = at((await config()).parsed, "health.port");
    const ports = records(container["ports"]);
    const named = (p: unknown) => ports.find((x) => x["name"] === p || x["containerPort"] === p);
    expect(at(container, "livenessProbe.httpGet.path")).toBe("/healthz");
    expect(at(container, "readinessProbe.httpGet.path")).toBe("/readyz");
    for (const probe of ["livenessProbe", "readinessProbe"]) {
      expect(named(at(container, `${probe}.httpGet.port`))?.["containerPort"], probe).toBe(port);
    }
    const healthEnv = records(container["env"]).find((e) => e["name"] === "THREATBRIDGE_HEALTH_PORT");
    expect(healthEnv?.["value"]).toBe(String(port));
  });

  it("SIGTERM has time to finish the write in flight: terminationGracePeriodSeconds ≥ 30", async () => {
    const { pod } = await deployment();
    expect(Number(pod["terminationGracePeriodSeconds"])).toBeGreaterThanOrEqual(30);
  });

  it("resources: requests from the measured ~150 MB RSS, a limit above the 100k-backfill peak (~423 MB)", async () => {
    const { container } = await deployment();
    const request = bytes(at(container, "resources.requests.memory"));
    const limit = bytes(at(container, "resources.limits.memory"));
    expect(request).toBeGreaterThanOrEqual(150 * 2 ** 20);
    expect(limit).toBeGreaterThan(423 * 1e6);
    expect(at(container, "resources.requests.cpu")).toBeDefined();
  });

  it("metrics are scraped: annotations on the pod and a Service port, both on health.port", async () => {
    const { dep, container } = await deployment();
    const port = at((await config()).parsed, "health.port");
    const annotations = record(at(dep, "spec.template.metadata.annotations"));
    expect(annotations["prometheus.io/scrape"]).toBe("true");
    expect(annotations["prometheus.io/port"]).toBe(String(port));
    expect(annotations["prometheus.io/path"]).toBe("/metrics");
    const service = await one("Service");
    expect(at(service, "spec.selector")).toEqual(at(dep, "spec.template.metadata.labels"));
    const target = at(service, "spec.ports.0.targetPort");
    const containerPort = records(container["ports"]).find((p) => p["name"] === target)?.["containerPort"];
    expect(containerPort ?? target).toBe(port);
  });

  it("the ConfigMap's config passes `threatbridge config validate` with its secret files present", async () => {
    const result = await validateWithCli((await config()).text);
    expect(result.out).toContain("valid");
    expect(result.code, result.out).toBe(0);
  });
});
