import { describe, expect, it } from "vitest";
import { GitHubError } from "../../src/github/index.js";
import { ASSET_REMOVED_COMMENT, REOPEN_COMMENT } from "../../src/sync/plan/plan.js";
import { putThreat } from "../../src/sync/records/state-updates.js";
import { ASSET, Harness, makeConfig, REPO, threatId } from "./harness.js";

const T1 = threatId(1);

describe("sync engine: platform → GitHub", () => {
  it("a new eligible threat costs exactly one GitHub write and is linked back with owner/name#number", async () => {
    const h = new Harness();
    h.platform.put({ id: T1, name: "Open admin panel", severity: "critical" });
    const report = await h.cycle();
    expect(report.ok).toBe(true);
    expect(h.github.writes).toBe(1);
    const [issue] = h.issueFor(T1);
    expect(issue?.body).toContain(`<!-- threatbridge:threat=${T1} -->`);
    expect(issue?.labels).toContain("threatbridge");
    const ref = h.platform.threats.get(T1)?.external_references.find((r) => r.system === "github");
    expect(ref).toMatchObject({ external_id: `${REPO}#1`, url: issue?.url });
  });

  it("the echo of the connector's own link costs zero GitHub writes", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.cycle();
    const writes = h.github.writes;
    const report = await h.cycle(); // the PUT came back on the stream
    expect(report.counters["threats_read"]).toBeGreaterThan(0);
    expect(h.github.writes).toBe(writes);
    expect(h.platform.writes).toBe(1); // the link only, never re-sent
  });

  it("an idle cycle costs no GitHub rate-limit point (conditional reads)", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    await h.cycle();
    const points = h.github.points;
    await h.cycle();
    expect(h.github.points).toBe(points);
  });

  it("status changes map to issue states: solved → closed completed, false_positive → not planned, pending unchanged", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    h.platform.put({ id: T1, status: "pending" });
    await h.cycle();
    expect(h.issueFor(T1)[0]?.state).toBe("open");
    h.platform.put({ id: T1, status: "solved" });
    let writes = h.github.writes;
    await h.cycle();
    expect(h.issueFor(T1)[0]).toMatchObject({ state: "closed", stateReason: "completed" });
    expect(h.github.writes - writes).toBe(1);
    h.platform.put({ id: T1, status: "unsolved" });
    await h.cycle();
    expect(h.issueFor(T1)[0]?.state).toBe("open");
    expect(h.issueFor(T1)[0]?.comments.some((c) => c.includes(REOPEN_COMMENT))).toBe(true);
    h.platform.put({ id: T1, status: "false_positive" });
    writes = h.github.writes;
    await h.cycle();
    expect(h.issueFor(T1)[0]).toMatchObject({ state: "closed", stateReason: "not_planned" });
    expect(h.github.writes - writes).toBe(1);
  });

  it("a threat first seen as solved, false_positive or accepted gets no issue", async () => {
    const h = new Harness();
    h.platform.put({ id: threatId(1), status: "solved" });
    h.platform.put({ id: threatId(2), status: "false_positive" });
    h.platform.put({ id: threatId(3), status: "accepted" });
    await h.cycle();
    expect(h.issues()).toHaveLength(0);
  });

  it("filters: min_severity and modules keep threats out; routes send the first match elsewhere", async () => {
    const h = new Harness(
      makeConfig({
        filters: { min_severity: "medium", modules: { exclude: ["dns"] } },
        routes: [
          {
            match: { severity: ["critical"] },
            repository: "acme/urgent",
            labels: ["urgent"],
            assignees: ["oncall"],
          },
          { match: { severity: ["critical", "high"] }, labels: ["second-rule"] },
        ],
      }),
    );
    h.platform.put({ id: threatId(1), severity: "low" });
    h.platform.put({ id: threatId(2), severity: "high", module: "dns" });
    h.platform.put({ id: threatId(3), severity: "Critical" });
    h.platform.put({ id: threatId(4), severity: "high" });
    await h.cycle();
    expect(h.issues("acme/urgent").map((i) => i.threatId)).toEqual([threatId(3)]);
    expect(h.issues("acme/urgent")[0]).toMatchObject({ assignees: ["oncall"] });
    expect(h.issues("acme/urgent")[0]?.labels).toContain("urgent");
    expect(h.issues().map((i) => i.threatId)).toEqual([threatId(4)]);
    expect(h.issues()[0]?.labels).toContain("second-rule");
  });

  it("an asset removal closes its threats' issues with a comment; a restore reopens those still unsolved", async () => {
    const h = new Harness();
    h.platform.put({ id: threatId(1) });
    h.platform.put({ id: threatId(2) });
    await h.settle();
    h.platform.put({ id: threatId(2), status: "false_positive" });
    await h.settle();
    h.platform.putAsset(ASSET, { deleted: true });
    await h.cycle();
    const [one] = h.issueFor(threatId(1));
    expect(one).toMatchObject({ state: "closed", stateReason: "not_planned" });
    expect(one?.comments.some((c) => c.includes(ASSET_REMOVED_COMMENT))).toBe(true);
    h.platform.putAsset(ASSET, { deleted: false });
    await h.settle();
    expect(h.issueFor(threatId(1))[0]?.state).toBe("open");
    expect(h.issueFor(threatId(2))[0]?.state).toBe("closed");
  });

  it("an update is sent only when what the issue shows changes", async () => {
    const h = new Harness();
    h.platform.put({ id: T1, name: "Old title" });
    await h.settle();
    const writes = h.github.writes;
    h.platform.put({ id: T1, name: "Old title", age_days: 40 }); // age alone: no write
    await h.cycle();
    expect(h.github.writes).toBe(writes);
    h.platform.put({ id: T1, name: "New title" });
    await h.cycle();
    expect(h.github.writes).toBe(writes + 1);
    expect(h.issueFor(T1)[0]?.title).toContain("New title");
  });
});

describe("sync engine: GitHub → platform", () => {
  it("a person's close becomes PATCH solved; pending leaves the issue closed; the next scan's unsolved reopens it with a comment", async () => {
    const h = new Harness();
    h.platform.put({ id: T1, module: "vulnerability" }); // auto-verified in the fake
    await h.settle();
    h.github.personSets(REPO, 1, "closed", "alice");
    await h.cycle();
    const threat = h.platform.threats.get(T1);
    expect(threat?.status).toBe("pending");
    expect(String(threat?.["status_note"])).toContain(`${REPO}#1`);
    expect(String(threat?.["status_note"])).toContain("alice");
    expect(h.issueFor(T1)[0]?.state).toBe("closed");
    // The issue shows the status by its state alone: the `pending` answer costs no GitHub write.
    expect(h.issueFor(T1)[0]?.labels).not.toContain("pending");
    const writes = h.github.stats().writes;
    await h.cycle(); // the verdict's echo
    expect(h.github.stats().writes).toBe(writes);
    expect(h.issueFor(T1)[0]?.state).toBe("closed");
    h.platform.put({ id: T1, status: "unsolved" }); // the next scan still detects it
    await h.cycle();
    expect(h.issueFor(T1)[0]?.state).toBe("open");
    expect(h.issueFor(T1)[0]?.comments.some((c) => c.includes(REOPEN_COMMENT))).toBe(true);
  });

  it("a person's reopen becomes PATCH unsolved", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    h.platform.put({ id: T1, status: "solved" });
    await h.settle();
    h.github.personSets(REPO, 1, "open", "bob");
    await h.settle();
    expect(h.platform.threats.get(T1)?.status).toBe("unsolved");
    expect(h.issueFor(T1)[0]?.state).toBe("open");
  });

  it("close reasons map to configured verdicts (not planned → false_positive)", async () => {
    const h = new Harness(
      makeConfig({ verdicts: { closed: { not_planned: { status: "false_positive" } } } }),
    );
    h.platform.put({ id: T1 });
    await h.settle();
    h.github.personSets(REPO, 1, "closed", "carol", "not_planned");
    await h.settle();
    expect(h.platform.threats.get(T1)?.status).toBe("false_positive");
    expect(h.issueFor(T1)[0]?.state).toBe("closed");
  });

  it("the connector's own closes are never taken for a person's verdict", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    h.platform.put({ id: T1, status: "solved" });
    await h.settle();
    const writes = h.platform.writes;
    await h.settle();
    expect(h.platform.writes).toBe(writes);
  });

  it("conflict: a person closes while the platform moves to accepted — the person's verdict is sent and the platform's answer decides", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    h.github.personSets(REPO, 1, "closed", "dave");
    h.platform.put({ id: T1, status: "accepted", status_note: "risk taken" });
    await h.settle();
    expect(h.platform.threats.get(T1)?.status).toBe("solved");
    expect(h.issueFor(T1)[0]?.state).toBe("closed");
  });

  it("a person's close that the platform already agrees with sends no verdict", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    h.platform.put({ id: T1, status: "solved" });
    h.github.personSets(REPO, 1, "closed", "erin");
    const writes = h.platform.writes;
    await h.settle();
    expect(h.platform.writes).toBe(writes);
    expect(h.issueFor(T1)[0]?.state).toBe("closed");
  });
});

describe("sync engine: never a duplicate", () => {
  it("a lost state file: a threat whose github reference names an issue is never given a second one", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    h.disk = null; // the state volume is gone
    h.restart();
    await h.settle();
    expect(h.issueFor(T1)).toHaveLength(1);
  });

  it("a lost state file after a create whose link never happened: the marker is found, no second issue", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    // Fail the link PUT: the issue exists, the platform does not know it.
    h.platform.failAt = { call: h.platform.calls + 3, after: false };
    await h.cycle();
    expect(h.issueFor(T1)).toHaveLength(1);
    h.disk = null;
    h.platform.failAt = null;
    h.restart();
    await h.settle();
    expect(h.issueFor(T1)).toHaveLength(1);
    expect(h.platform.threats.get(T1)?.external_references[0]?.external_id).toBe(`${REPO}#1`);
  });

  it("a create a stop kept from being sent stays queued as it was: no failure, no back-off, done once by the next cycle", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    const stopped = () => new GitHubError("stopped", "GitHub POST request not sent: stopping");
    h.github.failAt = { call: h.github.calls + 2, after: false, error: stopped }; // listChangedIssues, then the create
    const report = await h.cycle();
    expect(report.drained).toMatchObject({ failed: 0, deferred: 1 });
    expect(h.ctx.state.queue[T1]).toMatchObject({ attempts: 0 });
    expect(h.ctx.state.queue[T1]?.notBefore).toBeUndefined();
    expect(h.issueFor(T1)).toHaveLength(0);
    h.github.failAt = null;
    await h.cycle();
    expect(h.issueFor(T1)).toHaveLength(1);
    expect(h.ctx.state.queue[T1]).toBeUndefined();
  });

  it("a create whose response was lost is resolved by the marker, never re-sent", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    h.github.failAt = { call: h.github.calls + 2, after: true }; // listChangedIssues, then the create
    await h.settle();
    expect(h.issueFor(T1)).toHaveLength(1);
    expect(h.github.writes).toBe(1);
  });

  it("a person closes an issue whose create answer was lost, before the marker finds it: the close is a verdict", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    h.crashAt("github", 2, true); // listChangedIssues, then the create: killed as it lands
    await h.cycle().catch(() => undefined);
    h.restart();
    expect(h.ctx.state.threats.get(T1)?.issue).toBeUndefined();
    h.github.personSets(REPO, 1, "closed", "alice");
    await h.settle();
    expect(h.issueFor(T1)).toHaveLength(1);
    expect(h.issueFor(T1)[0]?.state).toBe("closed");
    expect(h.platform.threats.get(T1)?.status).toBe("solved");
  });
});

describe("sync engine: config changes and bad input", () => {
  it("a template change re-renders existing issues once, then costs nothing", async () => {
    const h = new Harness();
    h.platform.put({ id: T1, name: "Exposed bucket" });
    await h.settle();
    const changed = new Harness(makeConfig({ templates: { title: "Threat: {{ threat.title }}" } }));
    // Same platform, GitHub and disk: the operator edited the YAML and restarted.
    Object.assign(changed, { platform: h.platform, github: h.github, disk: h.disk });
    changed.restart();
    const writes = h.github.writes;
    await changed.settle();
    expect(h.issueFor(T1)[0]?.title).toBe("Threat: Exposed bucket");
    expect(h.github.writes).toBe(writes + 1);
    await changed.cycle();
    expect(h.github.writes).toBe(writes + 1);
  });

  it("a malformed stream item is logged, the cursor moves on, and the item is read again (GET) next cycle", async () => {
    const h = new Harness();
    h.platform.put({ id: threatId(1) });
    h.platform.putMalformed({ id: threatId(2), status: 42 });
    h.platform.put({ id: threatId(3) });
    h.platform.put({ id: threatId(2) }, false); // what a single read answers, once it parses
    h.platform.unreadable.add(threatId(2));
    const first = await h.cycle();
    expect(first.counters["malformed_threats"]).toBe(1);
    expect(
      h
        .issues()
        .map((i) => i.threatId)
        .sort(),
    ).toEqual([threatId(1), threatId(3)]);
    expect(h.ctx.state.retry.threats[threatId(2)]?.attempts).toBeGreaterThanOrEqual(1);
    h.platform.unreadable.clear(); // the platform serves it well now
    await h.cycle();
    expect(h.issueFor(threatId(2))).toHaveLength(1);
    expect(h.ctx.state.retry.threats[threatId(2)]).toBeUndefined();
  });
});

describe("sync engine: stopping", () => {
  it("a stop during the threat walk ends it after the page in hand; the next cycle resumes from the saved cursor", async () => {
    const h = new Harness();
    for (let i = 1; i <= 10; i += 1) h.platform.put({ id: threatId(i) });
    const stop = new AbortController();
    h.platform.afterPage = (kind) => {
      if (kind === "threats") stop.abort(new Error("SIGTERM"));
    };
    const { runCycle } = await import("../../src/sync/index.js");
    await runCycle(h.ctx, { signal: stop.signal });
    expect(h.ctx.state.cursors.threats).not.toBeNull();
    expect(h.ctx.state.threats.size).toBeLessThan(10);
    h.platform.afterPage = () => {};
    h.restart(); // from what was saved
    await h.settle();
    for (let i = 1; i <= 10; i += 1) expect(h.issueFor(threatId(i))).toHaveLength(1);
  });
});

describe("sync engine: reconcile", () => {
  it("repairs a link that was overwritten on the platform, even when the state holds the threat's version", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    // Someone moved the link elsewhere, and the state already saw that version.
    h.platform.put({
      id: T1,
      external_references: [{ system: "github", external_id: "acme/other#9", url: "u" }],
    });
    const record = h.ctx.state.threats.get(T1);
    if (record) putThreat(h.ctx, T1, { ...record, updatedAt: h.platform.threats.get(T1)?.updated_at ?? "" });
    const { runCycle } = await import("../../src/sync/index.js");
    await runCycle(h.ctx, { reconcile: true });
    expect(h.platform.threats.get(T1)?.external_references[0]?.external_id).toBe(`${REPO}#1`);
    expect(h.issues()).toHaveLength(1);
  });
});

describe("sync engine: crashes around comments", () => {
  it("a crash at any call while closing for a removed asset: the issue ends closed with exactly one comment saying why", async () => {
    for (let call = 1; call <= 6; call += 1) {
      for (const after of [false, true]) {
        const h = new Harness();
        h.platform.put({ id: T1 });
        await h.settle();
        h.platform.putAsset(ASSET, { deleted: true });
        h.crashAt("github", call, after);
        await h.cycle().catch(() => undefined);
        h.restart();
        await h.settle();
        const [issue] = h.issueFor(T1);
        expect(issue?.state, `crash at call ${call}, after=${after}`).toBe("closed");
        expect(
          issue?.comments.filter((c) => c.includes(ASSET_REMOVED_COMMENT)),
          `call ${call}, after=${after}`,
        ).toHaveLength(1);
      }
    }
  });
});

describe("sync engine: crashes around state changes", () => {
  it("a crash at any call while reopening: the issue ends open, one reopen comment, and no verdict is sent", async () => {
    for (let call = 1; call <= 6; call += 1) {
      for (const after of [false, true]) {
        const h = new Harness();
        h.platform.put({ id: T1 });
        await h.settle();
        h.platform.put({ id: T1, status: "false_positive" });
        await h.settle();
        h.platform.put({ id: T1, status: "unsolved" });
        const verdicts = h.platform.writes;
        h.crashAt("github", call, after);
        await h.cycle().catch(() => undefined);
        h.restart();
        await h.settle();
        const [issue] = h.issueFor(T1);
        const where = `crash at call ${call}, after=${after}`;
        expect(issue?.state, where).toBe("open");
        expect(
          issue?.comments.filter((c) => c.includes(REOPEN_COMMENT)),
          where,
        ).toHaveLength(1);
        expect(h.platform.writes, where).toBe(verdicts); // the connector's own reopen is not a person's
        expect(h.platform.threats.get(T1)?.status, where).toBe("unsolved");
      }
    }
  });
});

describe("sync engine: a threat that leaves the API while work is due", () => {
  it("a verdict whose threat answers 404 is dropped (the issue stays as the person left it), not retried forever", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    h.platform.put({ id: T1, name: "renamed" }); // read again in the next cycle, so held in memory
    h.github.personSets(REPO, 1, "closed", "alice");
    h.platform.afterPage = (kind) => {
      // The asset is removed after the streams were read, before the verdict is sent.
      const asset = h.platform.assets.get(ASSET);
      if (kind === "threats" && asset) h.platform.assets.set(ASSET, { ...asset, deleted: true });
    };
    const report = await h.cycle();
    expect(report.ok).toBe(true);
    expect(report.counters["threats_gone_on_write"]).toBe(1);
    expect(h.ctx.state.queue[T1]).toBeUndefined();
    expect(h.issueFor(T1)[0]?.state).toBe("closed");
  });
});

describe("sync engine: which issue is the threat's", () => {
  it("a lost state file with a second issue carrying the same marker: the platform's link decides, and it is not moved", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    // An older mishap left a second issue with the same marker.
    const [first] = h.issueFor(T1);
    await h.github.createIssue(REPO, {
      title: "dup",
      body: first?.body ?? "",
      labels: ["threatbridge"],
      assignees: [],
    });
    await h.github.updateIssue(REPO, 1, { title: first?.title ?? "" }); // #1 changed last: read after #2
    const writes = h.platform.writes;
    h.disk = null;
    h.restart();
    const report = await h.settle();
    expect(report.ok).toBe(true);
    expect(h.ctx.state.threats.get(T1)?.issue?.number).toBe(1);
    expect(h.platform.threats.get(T1)?.external_references[0]?.external_id).toBe(`${REPO}#1`);
    expect(h.platform.writes).toBe(writes); // no link moved
    expect(h.issues()).toHaveLength(2); // nothing created
  });
});
