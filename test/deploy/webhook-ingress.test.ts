import { join } from "node:path";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1/Ingress";
import { describe, expect, it } from "vitest";
import { at, record, records, ROOT, yamlDocuments } from "./deploy-files.js";

/**
 * deploy/kubernetes/optional/webhook-ingress.yaml: an OPTIONAL Ingress for GitHub's webhook
 * deliveries (contract, "GitHub webhooks"). Valid against the Kubernetes API schema, exposing only
 * the webhook path on the Service's health port, and not in the base kustomization.
 */

const DIR = join(ROOT, "deploy", "kubernetes");

describe("deploy/kubernetes: the optional webhook Ingress", () => {
  it("is a valid Ingress that routes only the webhook path to the Service's health port", async () => {
    const [doc] = await yamlDocuments(join(DIR, "optional", "webhook-ingress.yaml"));
    const ingress = record(doc);
    expect(() => new Ingress(ingress).validate()).not.toThrow();
    const paths = records(at(ingress, "spec.rules")).flatMap((rule) => records(at(rule, "http.paths")));
    expect(paths.map((p) => [p["path"], p["pathType"]])).toEqual([["/github/webhook", "Exact"]]);
    const [service] = await yamlDocuments(join(DIR, "base", "service.yaml"));
    const port = records(at(service, "spec.ports")).find(
      (p) => p["name"] === at(paths[0], "backend.service.port.name"),
    );
    expect(port?.["port"]).toBe(9464);
    expect(at(paths[0], "backend.service.name")).toBe(at(service, "metadata.name"));
  });

  it("is not applied by the base kustomization (webhooks are optional)", async () => {
    const [kustomization] = await yamlDocuments(join(DIR, "kustomization.yaml"));
    expect(at(kustomization, "resources")).not.toContain("optional/webhook-ingress.yaml");
  });
});
