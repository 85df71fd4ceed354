import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { afterEach, describe, expect, it } from "vitest";
import {
  eligibleIds,
  firstSeenStatuses,
  HEALTH_ANY_PORT,
  REPO,
  startWorld,
  type World,
} from "../e2e/world.js";
import { at, records, ROOT } from "./deploy-files.js";

/**
 * The dashboard and the alert rules in deploy/ name only series that a running `threatbridge run`
 * exports (issue: "name only exported metrics"): the BUILT CLI runs against the simulator and the
 * GitHub stand-in, /metrics is scraped, and every `threatbridge_*` (and `process_*`) name of every panel query and
 * every rule expression must be among the scraped ones.
 */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The metric names a PromQL expression reads: the connector's own and Node's process metrics. */
function namesIn(expr: string): string[] {
  return [...expr.matchAll(/\b(?:threatbridge|process)_[a-z_]+/g)].map((m) => m[0]);
}

/** The metric families a Prometheus text exposition declares, with a histogram's series names. */
function exported(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\w+)$/gm)) {
    const [, name = "", type] = m;
    names.add(name);
    if (type === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(name + suffix);
  }
  return names;
}

async function dashboardExpressions(): Promise<string[]> {
  const text = await readFile(join(ROOT, "deploy", "grafana", "threatbridge-dashboard.json"), "utf8");
  const dashboard: unknown = JSON.parse(text);
  const exprs: string[] = [];
  for (const panel of records(at(dashboard, "panels"))) {
    for (const target of records(panel["targets"])) exprs.push(String(target["expr"]));
  }
  for (const variable of records(at(dashboard, "templating.list"))) {
    if (typeof variable["definition"] === "string") exprs.push(variable["definition"]);
  }
  return exprs;
}

async function ruleExpressions(): Promise<string[]> {
  const text = await readFile(join(ROOT, "deploy", "prometheus", "threatbridge-rules.yaml"), "utf8");
  const rules = records(at(parse(text), "groups")).flatMap((g) => records(g["rules"]));
  return rules.map((r) => String(r["expr"]));
}

describe("deploy/: the dashboard and the alert rules read what `run` exports", () => {
  it("every threatbridge_* and process_* name in a panel query or a rule expression is scraped from a running `run`", async () => {
    world = await startWorld({}, `${HEALTH_ANY_PORT}schedule: "*/5 * * * *"\n`);
    const w = world;
    const wanted = eligibleIds(w, firstSeenStatuses(w)).length;
    const running = await w.startRun();
    let text = "";
    try {
      await running.until(() => w.gh.issues(REPO).length === wanted, "the issues to be created", 30_000);
      // Bounded: the first good cycle's figures appear within a few scrapes.
      for (let i = 0; i < 100 && !/^threatbridge_ready 1$/m.test(text); i += 1) {
        text = await fetch(`${running.base}/metrics`)
          .then((r) => r.text())
          .catch(() => "");
        if (!/^threatbridge_ready 1$/m.test(text)) await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await running.stop();
    }

    const names = exported(text);
    // What the scrape shows of a healthy run: ready, the schedule's 5 minutes, GitHub's limit seen.
    expect(text).toMatch(/^threatbridge_ready 1$/m);
    expect(text).toMatch(/^threatbridge_schedule_period_seconds 300$/m);
    expect(text).toMatch(/^threatbridge_github_rate_limit_limit [1-9]\d*$/m);

    const panels = await dashboardExpressions();
    const rules = await ruleExpressions();
    expect(panels.length).toBeGreaterThan(20);
    expect(rules.length).toBeGreaterThanOrEqual(7);
    const missing = [...panels, ...rules].flatMap(namesIn).filter((name) => !names.has(name));
    expect([...new Set(missing)]).toEqual([]);
  }, 60_000);
});
