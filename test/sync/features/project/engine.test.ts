import { describe, expect, it, vi } from "vitest";
import { Harness, makeConfig, REPO, threatId } from "../../harness.js";
import { FakeGitHub } from "../../fake-github.js";
import { FakeProjects } from "./fake-projects.js";
import { runtimeFor } from "../../../../src/sync/features/project/runtime.js";
import type { Config } from "../../../../src/config/index.js";
import { queueBackfill } from "../../../../src/sync/features/project/backfill.js";
import { projectCounts, projectLine } from "../../../../src/sync/features/project/counts.js";
import { addItemModule, setFieldsModule } from "../../../../src/sync/features/project/actions.js";
import { enqueue } from "../../../../src/sync/records/queue.js";
import { orderedQueue } from "../../../../src/sync/plan/queue-order.js";
import { featureContext } from "../../../../src/sync/features/registry.js";

const GITHUB = { token: "t", repository: REPO, api_url: "http://127.0.0.1:2" };
const PROJECT = {
  owner: "acme",
  number: 7,
  fields: { Severity: "{{ threat.severity }}", Due: "{{ sla.due }}", Title: "{{ threat.title }}" },
};

function withProject(extra: Record<string, unknown> = {}): Config {
  return makeConfig({ github: { ...GITHUB, project: PROJECT }, ...extra });
}

function harness(config = withProject()): { h: Harness; p: FakeProjects } {
  const p = new FakeProjects();
  return { h: new Harness(config, new FakeGitHub(), p), p };
}

const issueIdOf = (h: Harness, id: string): number => {
  const issue = h.issueFor(id)[0];
  if (!issue?.id) throw new Error(`no issue for ${id}`);
  return issue.id;
};

// Contract, "The conversation back" (projects): every issue the connector creates joins the project
// (at most one item per issue, whatever crashes); fields are found by name once and written only
// when a rendered value changes, so a person's change on the board stands.
describe("project items through the engine", () => {
  it("new issues: one add each and at most one PATCH each; fields found once per process", async () => {
    const { h, p } = harness();
    for (let n = 1; n <= 3; n++) h.platform.put({ id: threatId(n), name: `Threat ${n}`, severity: "high" });
    const report = await h.settle();
    expect(report.ok).toBe(true);
    expect(p.requests.getProject).toBe(1);
    expect(p.requests.listFields).toBe(1);
    expect(p.requests.add).toBe(3);
    expect(p.requests.patch).toBeLessThanOrEqual(3);
    for (let n = 1; n <= 3; n++) {
      const [item, ...more] = p.itemOf(issueIdOf(h, threatId(n)));
      expect(more).toEqual([]);
      // The option by its id, case-insensitively; the empty date (no SLA) leaves Due unset.
      expect(item?.values.get(1)).toBe("opt-high");
      expect(item?.values.has(2)).toBe(false);
      expect(item?.values.get(3)).toBe(`Threat ${n}`);
    }
    const audit = h.events.filter((e) => e.type === "feature_written");
    expect(audit.length).toBe(6);
    expect(audit.every((e) => e.type === "feature_written" && e.action === "project")).toBe(true);
  });

  it("a date field reading the SLA gets the due day the issue shows (the features' view of the threat, not the record)", async () => {
    const { h, p } = harness(withProject({ sla: { high: "30d" } }));
    h.platform.put({ id: threatId(1), name: "Threat 1", severity: "high" });
    expect((await h.settle()).ok).toBe(true);
    const body = h.issueFor(threatId(1))[0]?.body ?? "";
    const due = /\*\*Due: (\d{4}-\d{2}-\d{2})\*\*/.exec(body)?.[1];
    expect(due).toBeDefined();
    expect(p.itemOf(issueIdOf(h, threatId(1)))[0]?.values.get(2)).toBe(due);
  });

  it("the echo of the connector's own writes and an idle cycle cost 0 project requests", async () => {
    const { h, p } = harness();
    h.platform.put({ id: threatId(1), severity: "high" });
    await h.settle();
    const before = p.total;
    await h.cycle(); // the link and the issue come back on both sides
    await h.cycle();
    expect(p.total).toBe(before);
    // A new process with nothing to do reads nothing either (the project is looked up on first need).
    h.restart();
    await h.cycle();
    expect(p.total).toBe(before);
  });

  it("a person's board edit stands until the threat changes that value; a severity change is one PATCH", async () => {
    const { h, p } = harness();
    h.platform.put({ id: threatId(1), name: "Open admin panel", severity: "high" });
    await h.settle();
    const issueId = issueIdOf(h, threatId(1));
    p.boardEdit(issueId, 1, "opt-low");
    h.platform.put({ id: threatId(1), name: "Open admin panel", severity: "high", status: "unsolved" });
    await h.settle();
    expect(p.itemOf(issueId)[0]?.values.get(1)).toBe("opt-low");
    const patches = p.requests.patch;
    h.platform.put({ id: threatId(1), name: "Open admin panel", severity: "critical" });
    await h.settle();
    expect(p.requests.patch - patches).toBe(1);
    expect(p.patches.at(-1)?.changes).toEqual([{ fieldId: 1, value: "opt-crit" }]);
    expect(p.itemOf(issueId)[0]?.values.get(1)).toBe("opt-crit");
  });

  it("issues made before the project was configured join it once, even when a crash cuts the backfill mid-way", async () => {
    const { h, p } = harness(makeConfig({ github: GITHUB }));
    for (let n = 1; n <= 4; n++) h.platform.put({ id: threatId(n), severity: "medium" });
    await h.settle();
    expect(p.total).toBe(0);
    h.config = withProject();
    h.restart();
    // Calls: the project (1), its fields (2), then per threat its add and its PATCH: the second add
    // (call 5) lands and its answer is lost with the process.
    h.crashAt("conversation", 5, true);
    await h.cycle().catch(() => undefined);
    expect(h.dead).toBe(true);
    h.restart();
    await h.settle();
    for (let n = 1; n <= 4; n++) expect(p.itemOf(issueIdOf(h, threatId(n))).length).toBe(1);
    // The lost add was found by listing the items, never added a second time.
    expect(p.requests.add).toBe(4);
    expect(p.requests.find).toBeGreaterThanOrEqual(1);
    const total = p.total;
    await h.settle();
    expect(p.total).toBe(total);
  });

  it("a crash between the add and its record: the restart finds the item instead of adding again", async () => {
    const { h, p } = harness();
    h.platform.put({ id: threatId(1), severity: "low" });
    // Calls: the project (1), its fields (2), the add (3), which lands as the process dies.
    h.crashAt("conversation", 3, true);
    await h.cycle().catch(() => undefined);
    h.restart();
    await h.settle();
    expect(p.itemOf(issueIdOf(h, threatId(1))).length).toBe(1);
    expect(p.requests.add).toBe(1);
  });

  it("no project API (GitHub Enterprise Server) or no such project: said once, then off for the process", async () => {
    const { h, p } = harness();
    p.missing = true;
    const warn = vi.spyOn(h.ctx.logger, "warn");
    h.platform.put({ id: threatId(1) });
    h.platform.put({ id: threatId(2) });
    const report = await h.settle();
    expect(report.ok).toBe(true);
    expect(h.issueFor(threatId(1)).length).toBe(1);
    expect(p.requests.getProject).toBe(1);
    expect(p.requests.add).toBe(0);
    expect(runtimeFor(featureContext(h.ctx))?.off).toBe(true);
    const said = warn.mock.calls.filter(([, message]) => String(message).includes("projects API"));
    expect(said.length).toBe(1);
    h.platform.put({ id: threatId(3) });
    await h.settle();
    expect(p.total).toBe(1);
    warn.mockRestore();
  });

  it("issues made before the project join after new work: their work is the queue's last class", async () => {
    const { h, p } = harness(makeConfig({ github: GITHUB }));
    for (let n = 1; n <= 3; n++) h.platform.put({ id: threatId(n), severity: "critical" });
    h.platform.put({ id: threatId(4), severity: "low" });
    await h.settle();
    h.config = withProject();
    h.restart();
    await queueBackfill(featureContext(h.ctx));
    const now = new Date().toISOString();
    // A new low threat, queued after the backfill: it is created first all the same.
    enqueue(h.ctx, threatId(9), {}, now);
    // Real work for a low threat the backfill queued too (a content update): its own class, before
    // the backfill's critical ones ("added at the lowest priority").
    enqueue(h.ctx, threatId(4), {}, now);
    const order = orderedQueue(h.ctx.state, Date.now());
    expect(order.slice(0, 2)).toEqual([threatId(9), threatId(4)]);
    expect(order.slice(2).sort()).toEqual([threatId(1), threatId(2), threatId(3)]);
    expect(h.ctx.state.queue[threatId(4)]?.later).toBeUndefined();
    expect(h.ctx.state.queue[threatId(1)]?.later).toBe(true);
    // Queued once per project: a second call scans and queues nothing more, reads nothing more.
    const reads = p.total;
    await queueBackfill(featureContext(h.ctx));
    expect(p.total).toBe(reads);
  });

  it("status counts the items recorded; the dry run names the writes `project`", async () => {
    const { h } = harness();
    for (let n = 1; n <= 2; n++) h.platform.put({ id: threatId(n), severity: "low" });
    await h.settle();
    const counts = projectCounts(h.ctx.state.threats);
    expect(counts).toEqual({ items: 2 });
    expect(projectLine(counts)).toBe("project: 2 items recorded");
    const base = {
      kind: "feature" as const,
      feature: "project" as const,
      threatId: threatId(1),
      repo: REPO,
      number: 1,
    };
    expect(addItemModule.describe({ ...base, step: "add", issueId: 1 })).toMatchObject({ action: "project" });
    expect(
      setFieldsModule.describe({ ...base, step: "fields", itemId: 1, values: { Severity: "low", Due: "" } }),
    ).toEqual({ action: "project", detail: "set Severity, Due" });
  });
});
