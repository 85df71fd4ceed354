#!/usr/bin/env node
// Writes every PromQL expression of deploy/grafana/threatbridge-dashboard.json as a recording rule
// to the file named by the first argument, with Grafana's variables given plain values, so that
// `promtool check rules FILE` parses the dashboard's queries as Prometheus would (.ci/run).
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";

const out = process.argv[2];
if (!out) {
  console.error("usage: node scripts/dashboard-promql.mjs OUT.yaml");
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dashboard = JSON.parse(
  await readFile(join(root, "deploy", "grafana", "threatbridge-dashboard.json"), "utf8"),
);
const rules = [];
for (const panel of dashboard.panels) {
  for (const target of panel.targets ?? []) {
    const expr = String(target.expr)
      .replaceAll("$__rate_interval", "5m")
      .replaceAll("$__interval", "1m")
      .replace(/\$(job|instance)\b/g, ".*");
    rules.push({ record: `dashboard:panel_${panel.id}:${target.refId}`, expr });
  }
}
await writeFile(out, stringify({ groups: [{ name: "threatbridge-dashboard", rules }] }));
console.log(`${rules.length} dashboard queries written to ${out}`);
