import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { at, record, records, ROOT } from "./deploy-files.js";

/**
 * deploy/grafana/threatbridge-dashboard.json imports into any Grafana 10/11 as is: its data source
 * is a variable (no uid of someone's data source is written in it), its uid is fixed (a newer
 * import replaces the older), and its panels filter by the `job` and `instance` variables so one
 * dashboard serves a scale-out. That its queries name exported series is the scrape test's.
 */

const DS = "${datasource}";

async function dashboard(): Promise<Record<string, unknown>> {
  return record(
    JSON.parse(await readFile(join(ROOT, "deploy", "grafana", "threatbridge-dashboard.json"), "utf8")),
  );
}

describe("deploy/grafana: the dashboard", () => {
  it("has a fixed uid and a Prometheus data source variable, plus job and instance variables", async () => {
    const d = await dashboard();
    expect(d["uid"]).toBe("threatbridge-overview");
    expect(d["id"]).toBeNull();
    const vars = records(at(d, "templating.list"));
    const byName = new Map(vars.map((v) => [String(v["name"]), v]));
    expect(byName.get("datasource")).toMatchObject({ type: "datasource", query: "prometheus" });
    for (const name of ["job", "instance"]) {
      expect(byName.get(name), name).toMatchObject({ type: "query", datasource: { uid: DS } });
    }
  });

  it("every panel and query reads the data source variable, never a fixed data source uid", async () => {
    const panels = records((await dashboard())["panels"]).filter((p) => p["type"] !== "row");
    expect(panels.length).toBeGreaterThan(15);
    for (const panel of panels) {
      const title = String(panel["title"]);
      expect(at(panel, "datasource.uid"), title).toBe(DS);
      const targets = records(panel["targets"]);
      expect(targets.length, title).toBeGreaterThan(0);
      for (const target of targets) {
        expect(at(target, "datasource.uid"), title).toBe(DS);
        // Every series is filtered to the chosen job and instances.
        const expr = String(target["expr"]);
        for (const selector of expr.match(/\b(?:threatbridge|process)_[a-z_]+\{[^}]*\}/g) ?? []) {
          expect(selector, title).toContain('job=~"$job"');
          expect(selector, title).toContain('instance=~"$instance"');
        }
        expect(expr, title).not.toMatch(/\b(?:threatbridge|process)_[a-z_]+(?![a-z_{])/);
      }
    }
  });

  it("panels have unique ids and do not overlap on the 24-column grid", async () => {
    const panels = records((await dashboard())["panels"]);
    const ids = panels.map((p) => p["id"]);
    expect(new Set(ids).size).toBe(ids.length);
    const cells = new Set<string>();
    for (const p of panels) {
      const [x, y, w, h] = ["x", "y", "w", "h"].map((k) => Number(at(p, `gridPos.${k}`)));
      expect([x, y, w, h].every(Number.isInteger), String(p["title"])).toBe(true);
      if (x === undefined || y === undefined || w === undefined || h === undefined) continue;
      expect(x + w, String(p["title"])).toBeLessThanOrEqual(24);
      for (let i = x; i < x + w; i += 1) {
        for (let j = y; j < y + h; j += 1) {
          const cell = `${i},${j}`;
          expect(cells.has(cell), `${String(p["title"])} overlaps at ${cell}`).toBe(false);
          cells.add(cell);
        }
      }
    }
  });

  it("covers what the issue asks to see: cycles, backlog and its ETA, budget, rate limit, both sides' retries, intents, webhooks", async () => {
    const exprs = records((await dashboard())["panels"])
      .flatMap((p) => records(p["targets"]))
      .map((t) => String(t["expr"]))
      .join("\n");
    for (const series of [
      "threatbridge_cycles_total",
      "threatbridge_last_successful_cycle_timestamp_seconds",
      "threatbridge_queue_size",
      "threatbridge_queue_size_by_severity",
      "threatbridge_backlog_eta_seconds",
      "threatbridge_github_write_budget_used",
      "threatbridge_github_write_budget_paused",
      "threatbridge_github_rate_limit_remaining",
      "threatbridge_github_retries_total",
      "threatbridge_platform_retries_total",
      "threatbridge_queue_failing",
      "threatbridge_unfinished_intents",
      "threatbridge_webhook_deliveries_total",
    ]) {
      expect(exprs, series).toContain(series);
    }
  });
});
