import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { PersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";
import { Service } from "kubernetes-models/v1/Service";
import { parse, parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { at, record, records, ROOT, validateWithCli } from "./deploy-files.js";

/**
 * deploy/kubernetes/overlays/: past what one instance holds, one instance per platform
 * organization and GitHub credential (the write budget is per credential; contract: one process
 * per state file). Each overlay is rendered by `kubectl kustomize` as an operator would apply it,
 * and the rendered objects are held to that: valid Kubernetes objects, each instance with its own
 * state volume, config and Secret, and no selector reaching another instance's pods.
 */

const KUBERNETES = join(ROOT, "deploy", "kubernetes");
const run = promisify(execFile);

async function render(dir: string): Promise<Record<string, unknown>[]> {
  let stdout: string;
  try {
    ({ stdout } = await run("kubectl", ["kustomize", dir], { maxBuffer: 16 * 2 ** 20 }));
  } catch (e) {
    throw new Error(
      `\`kubectl kustomize ${dir}\` failed (is kubectl installed? .ci/run needs it): ${String(e)}`,
    );
  }
  return parseAllDocuments(stdout).map((d) => record(d.toJS()));
}

const MODELS: Record<string, (doc: Record<string, unknown>) => { validate(): void }> = {
  Deployment: (doc) => new Deployment(doc),
  ConfigMap: (doc) => new ConfigMap(doc),
  Service: (doc) => new Service(doc),
  PersistentVolumeClaim: (doc) => new PersistentVolumeClaim(doc),
};

function ofKind(docs: Record<string, unknown>[], kind: string): Record<string, unknown>[] {
  return docs.filter((d) => d["kind"] === kind);
}

function name(doc: Record<string, unknown>): string {
  return String(at(doc, "metadata.name"));
}

/** Whether a label selector (matchLabels or a Service's map) selects pods with these labels. */
function selects(selector: unknown, labels: unknown): boolean {
  const wanted = record(selector);
  const have = record(labels);
  return Object.entries(wanted).every(([k, v]) => have[k] === v);
}

/** The names each Deployment's pod mounts: its PVC, ConfigMap and Secret. */
function mounts(dep: Record<string, unknown>): { pvc: string; configMap: string; secret: string } {
  const volumes = records(at(dep, "spec.template.spec.volumes"));
  const pick = (field: string, key: string) =>
    String(volumes.map((v) => record(v[field])[key]).find((x) => x !== undefined));
  return {
    pvc: pick("persistentVolumeClaim", "claimName"),
    configMap: pick("configMap", "name"),
    secret: pick("secret", "secretName"),
  };
}

describe("deploy/kubernetes: the base and every overlay render with `kubectl kustomize`", () => {
  it("`kubectl apply -k deploy/kubernetes` applies the base, one instance", async () => {
    const docs = await render(KUBERNETES);
    expect(ofKind(docs, "Deployment").map(name)).toEqual(["threatbridge"]);
    expect(docs).toEqual(await render(join(KUBERNETES, "base")));
  });

  it("every overlay's objects are valid Kubernetes objects (API schema validation)", async () => {
    const overlays = await readdir(join(KUBERNETES, "overlays"));
    expect(overlays).toContain("multi-instance");
    for (const overlay of overlays) {
      const docs = await render(join(KUBERNETES, "overlays", overlay));
      expect(docs.length).toBeGreaterThan(0);
      for (const doc of docs) {
        const model = MODELS[String(doc["kind"])];
        expect(model, `${overlay}: ${String(doc["kind"])}`).toBeDefined();
        expect(() => model?.(doc).validate(), `${overlay}: ${name(doc)}`).not.toThrow();
      }
    }
  });

  it("multi-instance: each instance has its own Deployment (one replica, Recreate), state volume, config and Secret", async () => {
    const docs = await render(join(KUBERNETES, "overlays", "multi-instance"));
    const deployments = ofKind(docs, "Deployment");
    expect(deployments.length).toBeGreaterThanOrEqual(2);
    const claims = new Set(ofKind(docs, "PersistentVolumeClaim").map(name));
    const configMaps = new Set(ofKind(docs, "ConfigMap").map(name));
    const seen = { pvc: new Set<string>(), configMap: new Set<string>(), secret: new Set<string>() };
    for (const dep of deployments) {
      // Contract: one process per state file, so one replica and no overlap at a rollout.
      expect(at(dep, "spec.replicas")).toBe(1);
      expect(at(dep, "spec.strategy.type")).toBe("Recreate");
      const m = mounts(dep);
      expect(claims.has(m.pvc), `${name(dep)} mounts a PVC of the overlay`).toBe(true);
      expect(configMaps.has(m.configMap), `${name(dep)} mounts a ConfigMap of the overlay`).toBe(true);
      for (const key of ["pvc", "configMap", "secret"] as const) {
        expect(seen[key].has(m[key]), `${name(dep)}: its ${key} ${m[key]} is no other instance's`).toBe(
          false,
        );
        seen[key].add(m[key]);
      }
    }
  });

  it("multi-instance: no Deployment or Service selects another instance's pods", async () => {
    const docs = await render(join(KUBERNETES, "overlays", "multi-instance"));
    const deployments = ofKind(docs, "Deployment");
    const services = ofKind(docs, "Service");
    expect(services).toHaveLength(deployments.length);
    for (const dep of deployments) {
      const podLabels = at(dep, "spec.template.metadata.labels");
      expect(selects(at(dep, "spec.selector.matchLabels"), podLabels)).toBe(true);
      const others = deployments.filter((d) => d !== dep);
      for (const other of others) {
        expect(
          selects(at(other, "spec.selector.matchLabels"), podLabels),
          `${name(other)} → ${name(dep)}`,
        ).toBe(false);
      }
      expect(services.filter((s) => selects(at(s, "spec.selector"), podLabels))).toHaveLength(1);
    }
  });

  it("multi-instance: each instance's config is valid and names its own platform client and repository", async () => {
    const docs = await render(join(KUBERNETES, "overlays", "multi-instance"));
    const configs = ofKind(docs, "ConfigMap").map((cm) => String(Object.values(record(cm["data"]))[0]));
    expect(configs.length).toBeGreaterThanOrEqual(2);
    for (const text of configs) {
      const result = await validateWithCli(text);
      expect(result.code, result.out).toBe(0);
    }
    const parsed: unknown[] = configs.map((t) => parse(t));
    const distinct = (path: string) => new Set(parsed.map((c) => String(at(c, path)))).size;
    expect(distinct("platform.client_id")).toBe(configs.length);
    expect(distinct("github.repository")).toBe(configs.length);
  });
});
