import { join } from "node:path";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1/Ingress";
import { Service } from "kubernetes-models/v1/Service";
import { describe, expect, it } from "vitest";
import { at, record, records, ROOT, yamlDocuments } from "./deploy-files.js";

/**
 * deploy/kubernetes/optional/webhook-ingress.yaml: an OPTIONAL Ingress for GitHub's webhook
 * deliveries (contract, "GitHub webhooks"). Valid against the Kubernetes API schema, exposing only
 * the webhook path on the Service's health port, and not in the base kustomization.
 */

const DIR = join(ROOT, "deploy", "kubernetes");

describe("deploy/kubernetes: the optional webhook Ingress", () => {
  it("is a valid Ingress that routes only the webhook path to the health port, through a Service that keeps unready pods", async () => {
    const [serviceDoc, ingressDoc] = await yamlDocuments(join(DIR, "optional", "webhook-ingress.yaml"));
    const ingress = record(ingressDoc);
    expect(() => new Ingress(ingress).validate()).not.toThrow();
    const paths = records(at(ingress, "spec.rules")).flatMap((rule) => records(at(rule, "http.paths")));
    expect(paths.map((p) => [p["path"], p["pathType"]])).toEqual([["/github/webhook", "Exact"]]);
    const service = record(serviceDoc);
    expect(() => new Service(service).validate()).not.toThrow();
    expect(at(paths[0], "backend.service.name")).toBe(at(service, "metadata.name"));
    const port = records(at(service, "spec.ports")).find(
      (p) => p["name"] === at(paths[0], "backend.service.port.name"),
    );
    expect(port?.["port"]).toBe(9464);
    // Contract, "GitHub webhooks": a person's close reaches the platform within 5 s; /readyz fails
    // until the first good cycle and while a stream is stopped, which must not cut the deliveries off.
    expect(at(service, "spec.publishNotReadyAddresses")).toBe(true);
    // The same pods as the base Service's.
    const [base] = await yamlDocuments(join(DIR, "base", "service.yaml"));
    expect(at(service, "spec.selector")).toEqual(at(base, "spec.selector"));
  });

  it("is not applied by the base kustomization (webhooks are optional)", async () => {
    const [kustomization] = await yamlDocuments(join(DIR, "kustomization.yaml"));
    expect(at(kustomization, "resources")).not.toContain("optional/webhook-ingress.yaml");
  });
});
