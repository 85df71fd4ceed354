import { sign } from "@octokit/webhooks-methods";
import { afterEach, describe, expect, it } from "vitest";
import { parseMarker } from "../../src/github/index.js";
import {
  eligibleIds,
  firstSeenStatuses,
  GH_TOKEN,
  REPO,
  startWorld,
  type World,
  get,
  HEALTH_ANY_PORT,
} from "../e2e/world.js";

/**
 * Contract, "GitHub webhooks (optional)": with `github.webhook` set, a person's close of a managed
 * issue reaches the platform as its verdict within 5 s of the delivery, without waiting for the
 * schedule (here: once a year). The BUILT CLI's `run` against the simulator and the GitHub
 * stand-in, which sends signed `issues` deliveries as GitHub does.
 */

const SECRET = "e2e-webhook-secret-0f3a9c";
const PATH = "/github/webhook";

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/**
 * The stand-in's webhook options, pointing at `run`'s health server once it has started (on a port
 * of its own choosing): the stand-in reads the URL at each delivery, and none is sent before.
 */
function deliveriesTo(): { options: { url: string; secret: string }; at: (base: string) => void } {
  let url = "http://127.0.0.1:1/not-started";
  return {
    options: {
      get url() {
        return url;
      },
      secret: SECRET,
    },
    at: (base) => (url = `${base}${PATH}`),
  };
}

describe("threatbridge run with GitHub webhooks (end to end)", () => {
  it("a person's close reaches the platform within 5 s of the delivery; a forged delivery is refused", async () => {
    const hook = deliveriesTo();
    world = await startWorld({}, `${HEALTH_ANY_PORT}schedule: "0 0 1 1 *"\n`, {
      standIn: { tokens: [GH_TOKEN], webhook: hook.options },
      githubAuthYaml: `token: \${GITHUB_TOKEN}\n  webhook:\n    path: ${PATH}\n    secret: \${GITHUB_WEBHOOK_SECRET}`,
      env: { GITHUB_WEBHOOK_SECRET: SECRET, THREATBRIDGE_LOG_LEVEL: "info" },
    });
    const w = world;
    const wanted = eligibleIds(w, firstSeenStatuses(w)).length;
    const running = await w.startRun();
    const { base } = running;
    hook.at(base);
    const until = running.until;
    await until(() => w.gh.issues(REPO).length === wanted, "the issues to be created", 30_000);
    let ready = await get(`${base}/readyz`);
    for (let i = 0; i < 100 && ready?.status !== 200; i += 1) {
      await new Promise((r) => setTimeout(r, 50));
      ready = await get(`${base}/readyz`);
    }
    expect(ready?.status).toBe(200);

    const issue = w.gh.issues(REPO).find((i) => i.state === "open");
    const threatId = parseMarker(issue?.body);
    if (!issue || threatId === null) throw new Error("no open managed issue");
    expect(w.sim.sim.getThreat(threatId)?.status).not.toBe("solved");

    const started = Date.now();
    w.gh.person.close(REPO, issue.number, { reason: "completed", login: "alice" });
    await until(() => w.sim.sim.getThreat(threatId)?.status === "solved", "the verdict", 5_000);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(5_000);
    await w.gh.webhooks.settled();
    expect(w.gh.webhooks.deliveries().map((d) => [d.action, d.status])).toEqual([["closed", 202]]);

    // A delivery signed with another secret: 401, and the issue it names is not read.
    const forged = JSON.stringify({ action: "reopened", issue: { number: issue.number }, repository: {} });
    const refused = await fetch(`${base}${PATH}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "issues",
        "x-github-delivery": "forged-1",
        "x-hub-signature-256": await sign("not-the-secret", forged),
      },
      body: forged,
    });
    expect(refused.status).toBe(401);
    const metrics = (await get(`${base}/metrics`))?.text ?? "";
    expect(metrics).toMatch(/^threatbridge_webhook_deliveries_total\{outcome="accepted"\} 1$/m);
    expect(metrics).toMatch(
      /^threatbridge_webhook_deliveries_total\{outcome="rejected",reason="signature"\} 1$/m,
    );
    // Only the one (scheduled at start) cycle ran: the verdict did not wait for a poll.
    expect(metrics).toMatch(/^threatbridge_cycles_total\{outcome="ok"\} 1$/m);

    const stopped = await running.stop();
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).not.toContain(SECRET);
    expect(stopped.stderr).toContain(`${base}${PATH}`);
  }, 60_000);

  it("single mode: a person's close of a group's issue reaches every open member as its verdict within 5 s", async () => {
    const hook = deliveriesTo();
    world = await startWorld(
      {},
      `${HEALTH_ANY_PORT}schedule: "0 0 1 1 *"\ngrouping:\n  by: asset\n  mode: single\n`,
      {
        standIn: { tokens: [GH_TOKEN], webhook: hook.options },
        githubAuthYaml: `token: \${GITHUB_TOKEN}\n  webhook:\n    path: ${PATH}\n    secret: \${GITHUB_WEBHOOK_SECRET}`,
        env: { GITHUB_WEBHOOK_SECRET: SECRET },
      },
    );
    const w = world;
    const running = await w.startRun();
    const { base } = running;
    hook.at(base);
    const until = running.until;
    const groupIssue = () =>
      w.gh.issues(REPO).find((i) => i.state === "open" && i.labels.includes("threatbridge:group"));
    await until(() => groupIssue() !== undefined, "a group's issue", 30_000);
    let ready = await get(`${base}/readyz`);
    for (let i = 0; i < 100 && ready?.status !== 200; i += 1) {
      await new Promise((r) => setTimeout(r, 50));
      ready = await get(`${base}/readyz`);
    }
    expect(ready?.status).toBe(200);
    const issue = groupIssue();
    const assetId = /threatbridge:group=asset:([^ ]+) -->/.exec(issue?.body ?? "")?.[1];
    if (!issue || assetId === undefined) throw new Error("no group issue with its marker");
    const members = w.sim.sim.threatIds().filter((id) => {
      const t = w.sim.sim.getThreat(id);
      return t?.asset_id === decodeURIComponent(assetId) && t.status === "unsolved";
    });
    expect(members.length).toBeGreaterThan(0);

    w.gh.person.close(REPO, issue.number, { reason: "completed", login: "alice" });
    // Every open member gets the close's verdict (`solved`; a finding the platform re-tests
    // answers `pending`), without waiting for the schedule.
    await until(
      () => members.every((id) => w.sim.sim.getThreat(id)?.status !== "unsolved"),
      "every member's verdict",
      5_000,
    );
    await w.gh.webhooks.settled();
    expect(w.gh.webhooks.deliveries().map((d) => [d.action, d.status])).toEqual([["closed", 202]]);
    expect(w.gh.issues(REPO).find((i) => i.number === issue.number)?.state).toBe("closed");

    const stopped = await running.stop();
    expect(stopped.code, stopped.stderr).toBe(0);
  }, 60_000);
});
