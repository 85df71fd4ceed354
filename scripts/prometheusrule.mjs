#!/usr/bin/env node
// Writes deploy/kubernetes/optional/prometheusrule.yaml (a Prometheus Operator PrometheusRule) from
// deploy/prometheus/threatbridge-rules.yaml, so that the two sets of alerts cannot drift apart;
// test/deploy/alert-rules.test.ts fails when the written file no longer matches.
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "deploy", "prometheus", "threatbridge-rules.yaml");
const target = join(root, "deploy", "kubernetes", "optional", "prometheusrule.yaml");

const rules = parse(await readFile(source, "utf8"));
const resource = {
  apiVersion: "monitoring.coreos.com/v1",
  kind: "PrometheusRule",
  metadata: {
    name: "threatbridge",
    labels: { "app.kubernetes.io/name": "threatbridge", "app.kubernetes.io/component": "alerts" },
  },
  spec: { groups: rules.groups },
};
const header =
  "# Generated from deploy/prometheus/threatbridge-rules.yaml by `node scripts/prometheusrule.mjs`:\n" +
  "# edit that file and run the script again. Apply with `kubectl apply -f` where the Prometheus\n" +
  "# Operator runs; add the labels its ruleSelector asks for (e.g. `release: <helm release>`).\n";
await writeFile(target, header + stringify(resource, { lineWidth: 0 }));
console.log(`wrote ${target}`);
