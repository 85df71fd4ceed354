import { describe, expect, test } from "vitest";
import type { ApiThreat } from "../../src/simulator/index.js";
import { asRecord, manualClock, simulatorPerTest, type Api } from "./helpers.js";

const open = simulatorPerTest();

async function patch(api: Api, id: string, body: unknown): Promise<Record<string, unknown>> {
  const answer = await api.call("PATCH", `/v1/threats/${id}`, { body });
  if (answer.status !== 200) throw new Error(`PATCH answered ${answer.status}: ${answer.text}`);
  return asRecord(answer.body);
}

function seed(api: Api, module: string, status: ApiThreat["status"]): ApiThreat {
  return api.sim.sim.addThreat({ module, status, ...(status === "accepted" ? { status_note: "why" } : {}) });
}

const ALL = ["unsolved", "solved", "false_positive", "accepted", "pending"] as const;

describe("States and transitions: threat status", () => {
  test("Status table row 1: any status + PATCH unsolved → unsolved, updated_at bumped, status change re-stamped", async () => {
    const clock = manualClock();
    const api = await open({ clock });
    for (const from of ALL) {
      const threat = seed(api, "vulnerability", from);
      clock.advance(1000);
      const body = await patch(api, threat.id, { status: "unsolved" });
      expect(body["status"]).toBe("unsolved");
      expect(String(body["updated_at"]) > threat.updated_at).toBe(true);
      expect(String(body["status_changed_at"]) > threat.status_changed_at).toBe(true);
    }
  });

  test("Status table row 2: any status + PATCH false_positive → false_positive", async () => {
    const api = await open();
    for (const from of ALL) {
      const threat = seed(api, "lcm", from);
      expect((await patch(api, threat.id, { status: "false_positive" }))["status"]).toBe("false_positive");
    }
  });

  test("Status table row 3: any status + PATCH accepted with a non-empty status_note → accepted", async () => {
    const api = await open();
    for (const from of ALL) {
      const threat = seed(api, "dns", from);
      const body = await patch(api, threat.id, { status: "accepted", status_note: "Accepted until Q3" });
      expect(body).toMatchObject({ status: "accepted", status_note: "Accepted until Q3" });
    }
  });

  test("Status table row 4 / PATCH rule 3: solved on an automatically verified threat answers pending", async () => {
    const api = await open();
    for (const module of ["vulnerability", "web", "dns"]) {
      const threat = seed(api, module, "unsolved");
      expect((await patch(api, threat.id, { status: "solved" }))["status"]).toBe("pending");
      expect(api.sim.sim.getThreat(threat.id)?.status).toBe("pending");
    }
  });

  test("Status table (not shown in the spec): solved on a threat not verified automatically answers solved", async () => {
    const api = await open();
    for (const module of ["lcm", "leaked_credentials", "cloud"]) {
      const threat = seed(api, module, "unsolved");
      expect((await patch(api, threat.id, { status: "solved" }))["status"]).toBe("solved");
    }
  });

  test("Status table row 5: pending + next scan that still detects the threat → unsolved", async () => {
    const api = await open();
    const threat = seed(api, "web", "pending");
    const scan = await api.call("POST", "/_sim/scan", { token: null, body: { outcome: "unsolved" } });
    expect(asRecord(scan.body)["unsolved"]).toBeGreaterThanOrEqual(1);
    expect(api.sim.sim.getThreat(threat.id)?.status).toBe("unsolved");
  });

  test("Status table row 6: pending + next scan that finds the threat gone → solved, re-delivered on the stream", async () => {
    const api = await open();
    const { lastCursor } = await api.walk("/v1/threats");
    const threat = seed(api, "web", "unsolved");
    await patch(api, threat.id, { status: "solved" });
    api.sim.sim.scan("solved");
    const changes = await api.walk("/v1/threats", { cursor: lastCursor });
    const delivered = changes.items.filter((item) => item["id"] === threat.id);
    expect(delivered.map((item) => item["status"])).toEqual(["solved"]);
    expect(api.sim.sim.state().statuses["pending"]).toBeUndefined();
  });

  test("Status table row 7: false_positive and accepted are sticky across scans", async () => {
    const api = await open();
    const fp = seed(api, "vulnerability", "false_positive");
    const accepted = seed(api, "vulnerability", "accepted");
    for (const outcome of ["solved", "unsolved", "random"] as const) api.sim.sim.scan(outcome);
    expect(api.sim.sim.getThreat(fp.id)?.status).toBe("false_positive");
    expect(api.sim.sim.getThreat(accepted.id)?.status).toBe("accepted");
  });

  test("Status table row 8 / PATCH rule 1: status=pending answers 400 request/invalid-status-transition and changes nothing", async () => {
    const api = await open();
    const threat = seed(api, "lcm", "unsolved");
    const path = `/v1/threats/${threat.id}`;
    const answer = await api.call("PATCH", path, { body: { status: "pending" } });
    const problem = api.problem(answer, "request/invalid-status-transition", 400);
    expect(problem.instance).toBe(path);
    for (const status of ["unsolved", "solved", "false_positive", "accepted"])
      expect(problem.detail).toContain(status);
    expect(api.sim.sim.getThreat(threat.id)).toEqual(threat);
  });

  test("PATCH rule 2: unknown status, missing status_note on accepted, malformed body or unknown key answer 422 request/validation", async () => {
    const api = await open();
    const threat = seed(api, "lcm", "unsolved");
    const path = `/v1/threats/${threat.id}`;
    const bad = [
      { body: { status: "fixed" } },
      { body: { status: "accepted" } },
      { body: { status: "accepted", status_note: "" } },
      { body: { status: "unsolved", priority: 1 } },
      { body: { status_note: "no status" } },
      { body: { status: 3 } },
      { body: ["unsolved"] },
      { raw: "{not json" },
      { raw: "" },
    ];
    for (const options of bad) api.problem(await api.call("PATCH", path, options), "request/validation", 422);
    expect(api.sim.sim.getThreat(threat.id)).toEqual(threat);
  });

  test("PATCH rule 4: success bumps updated_at and the threat is re-delivered on the next poll", async () => {
    const api = await open();
    const { lastCursor } = await api.walk("/v1/threats");
    const id = api.sim.sim.threatIds()[10] ?? "";
    const before = api.sim.sim.getThreat(id);
    const body = await patch(api, id, { status: "false_positive" });
    expect(String(body["updated_at"]) > String(before?.updated_at)).toBe(true);
    expect(body["stream_position"]).toBeNull();
    const next = await api.walk("/v1/threats", { cursor: lastCursor });
    expect(next.items.map((item) => item["id"])).toEqual([id]);
    expect(next.items[0]?.["updated_at"]).toBe(body["updated_at"]);
  });

  test("PATCH rule 5: re-sending the same verdict reaches the same state, re-stamps and re-delivers", async () => {
    const clock = manualClock();
    const api = await open({ clock });
    const id = api.sim.sim.threatIds()[11] ?? "";
    const first = await patch(api, id, { status: "false_positive" });
    const { lastCursor } = await api.walk("/v1/threats");
    clock.advance(1000);
    const second = await patch(api, id, { status: "false_positive" });
    expect(second["status"]).toBe("false_positive");
    expect(String(second["status_changed_at"]) > String(first["status_changed_at"])).toBe(true);
    const next = await api.walk("/v1/threats", { cursor: lastCursor });
    expect(next.items.map((item) => item["id"])).toEqual([id]);
  });

  test("PATCH: the answer is the full threat as a bare object, same fields as the single read", async () => {
    const api = await open();
    const id = api.sim.sim.threatIds()[12] ?? "";
    const body = await patch(api, id, { status: "unsolved" });
    const read = await api.call("GET", `/v1/threats/${id}`);
    expect(body).toEqual(read.body);
    expect(body["pagination"]).toBeUndefined();
  });
});
