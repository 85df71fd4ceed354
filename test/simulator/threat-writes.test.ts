import { describe, expect, test } from "vitest";
import { asRecord, manualClock, simulatorPerTest, type Api } from "./helpers.js";

const open = simulatorPerTest();

const note = (api: Api, id: string, body: unknown): ReturnType<Api["call"]> =>
  api.call("POST", `/v1/threats/${id}/update-note`, { body });
const link = (api: Api, id: string, system: string, body: unknown): ReturnType<Api["call"]> =>
  api.call("PUT", `/v1/threats/${id}/external-references/${encodeURIComponent(system)}`, { body });
const ref = { external_id: "acme/security#7", url: "https://github.example/acme/security/issues/7" };

describe("POST /v1/threats/{threat_id}/update-note", () => {
  test("update-note rule 1: answers 202 Accepted with an empty body", async () => {
    const api = await open();
    const answer = await note(api, api.sim.sim.threatIds()[0] ?? "", { note: "Tracked in JIRA-12" });
    expect(answer.status).toBe(202);
    expect(answer.text).toBe("");
  });

  test("update-note rule 2: applied asynchronously; an immediate read may still show the previous note", async () => {
    const api = await open({ asyncWriteDelayMs: 60_000 });
    const id = api.sim.sim.threatIds()[0] ?? "";
    const before = asRecord((await api.call("GET", `/v1/threats/${id}`)).body)["note"];
    await note(api, id, { note: "new note" });
    expect(asRecord((await api.call("GET", `/v1/threats/${id}`)).body)["note"]).toBe(before);
    expect((await api.call("POST", "/_sim/settle", { token: null })).status).toBe(204);
    expect(asRecord((await api.call("GET", `/v1/threats/${id}`)).body)["note"]).toBe("new note");
  });

  test("update-note rule 2: the note becomes visible after a short delay without help", async () => {
    const api = await open({ asyncWriteDelayMs: 5 });
    const id = api.sim.sim.threatIds()[0] ?? "";
    await note(api, id, { note: "eventually" });
    let seen: unknown;
    for (let i = 0; i < 200 && seen !== "eventually"; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      seen = asRecord((await api.call("GET", `/v1/threats/${id}`)).body)["note"];
    }
    expect(seen).toBe("eventually");
  });

  test("update-note rule 3: success bumps updated_at and re-delivers the threat; the status never changes", async () => {
    const api = await open();
    const id = api.sim.sim.threatIds()[3] ?? "";
    const before = api.sim.sim.getThreat(id);
    const { lastCursor } = await api.walk("/v1/threats");
    await note(api, id, { note: "" + "Owner: @platform-team" });
    api.sim.sim.settle();
    const next = await api.walk("/v1/threats", { cursor: lastCursor });
    expect(next.items.map((item) => item["id"])).toEqual([id]);
    expect(next.items[0]?.["note"]).toBe("Owner: @platform-team");
    expect(next.items[0]?.["status"]).toBe(before?.status);
    expect(String(next.items[0]?.["updated_at"]) > String(before?.updated_at)).toBe(true);
  });

  test("update-note rule 4: an identical note answers 202 and changes nothing (no re-delivery)", async () => {
    const api = await open();
    const id = api.sim.sim.threatIds()[4] ?? "";
    await note(api, id, { note: "same" });
    api.sim.sim.settle();
    const stored = api.sim.sim.getThreat(id);
    const { lastCursor } = await api.walk("/v1/threats");
    expect((await note(api, id, { note: "same" })).status).toBe(202);
    api.sim.sim.settle();
    expect(api.sim.sim.getThreat(id)).toEqual(stored);
    expect((await api.walk("/v1/threats", { cursor: lastCursor })).items).toEqual([]);
  });

  test("update-note rule 5: 404 resource/not-found for no such threat; nothing is written", async () => {
    const api = await open();
    const before = api.sim.sim.state();
    const answer = await note(api, "11111111-2222-4333-8444-555555555555", { note: "x" });
    api.problem(answer, "resource/not-found", 404);
    expect(api.sim.sim.state().pendingAsyncWrites).toBe(before.pendingAsyncWrites);
  });

  test("update-note body: missing or non-string note and extra keys answer 422; an empty note is stored", async () => {
    const api = await open();
    const id = api.sim.sim.threatIds()[5] ?? "";
    for (const body of [{}, { note: 5 }, { note: null }, { note: "x", status: "solved" }, "note"]) {
      api.problem(await note(api, id, body), "request/validation", 422);
    }
    await note(api, id, { note: "first" });
    expect((await note(api, id, { note: "" })).status).toBe(202);
    api.sim.sim.settle();
    expect(api.sim.sim.getThreat(id)?.note).toBe("");
  });
});

describe("update-note retry safety", () => {
  test("update-note rule 6: re-sending the same note after an unknown outcome is safe (one change, one re-delivery)", async () => {
    const api = await open();
    const id = api.sim.sim.threatIds()[8] ?? "";
    const { lastCursor } = await api.walk("/v1/threats");
    api.sim.sim.setFaults({ rate_500_after_write: 1 });
    api.problem(await note(api, id, { note: "retry me" }), "server/internal-error", 500);
    api.sim.sim.setFaults({});
    expect((await note(api, id, { note: "retry me" })).status).toBe(202);
    api.sim.sim.settle();
    const next = await api.walk("/v1/threats", { cursor: lastCursor });
    expect(next.items.map((item) => [item["id"], item["note"]])).toEqual([[id, "retry me"]]);
  });
});

describe("PUT /v1/threats/{threat_id}/external-references/{system}", () => {
  test("External references rule 1: answers 204 No Content with an empty body", async () => {
    const api = await open();
    const answer = await link(api, api.sim.sim.threatIds()[0] ?? "", "github", ref);
    expect(answer.status).toBe(204);
    expect(answer.text).toBe("");
  });

  test("External references rule 2: system is the key; the same system replaces, another system adds", async () => {
    const api = await open();
    const id = api.sim.sim.threatIds()[1] ?? "";
    await link(api, id, "github", ref);
    await link(api, id, "github", { external_id: "acme/security#8", url: "https://github.example/8" });
    await link(api, id, "jira", { external_id: "SEC-1", url: "https://jira.example/SEC-1" });
    api.sim.sim.settle();
    const refs = api.sim.sim.getThreat(id)?.external_references ?? [];
    expect(refs.map((r) => [r.system, r.external_id])).toEqual([
      ["github", "acme/security#8"],
      ["jira", "SEC-1"],
    ]);
  });

  test("External references rule 3: retries are safe (the same PUT twice gives one link, linked_at kept)", async () => {
    const clock = manualClock();
    const api = await open({ clock });
    const id = api.sim.sim.threatIds()[2] ?? "";
    await link(api, id, "github", ref);
    api.sim.sim.settle();
    const first = api.sim.sim.getThreat(id);
    clock.advance(1000);
    await link(api, id, "github", ref);
    api.sim.sim.settle();
    const second = api.sim.sim.getThreat(id);
    expect(second?.external_references).toEqual(first?.external_references);
    expect(second?.external_references).toHaveLength(1);
  });

  test("External references rule 4: linked_at is set by the platform; linked_at in the body answers 422", async () => {
    const clock = manualClock();
    const api = await open({ clock });
    const id = api.sim.sim.threatIds()[3] ?? "";
    const answer = await link(api, id, "github", { ...ref, linked_at: "2020-01-01T00:00:00Z" });
    api.problem(answer, "request/validation", 422);
    await link(api, id, "github", ref);
    api.sim.sim.settle();
    expect(api.sim.sim.getThreat(id)?.external_references[0]?.linked_at).toBe(
      new Date(clock.now()).toISOString(),
    );
  });

  test("External references rule 5: bumps updated_at and reaches the stream asynchronously", async () => {
    const api = await open({ asyncWriteDelayMs: 60_000 });
    const id = api.sim.sim.threatIds()[4] ?? "";
    const { lastCursor } = await api.walk("/v1/threats");
    await link(api, id, "github", ref);
    expect((await api.walk("/v1/threats", { cursor: lastCursor })).items).toEqual([]);
    expect(asRecord((await api.call("GET", `/v1/threats/${id}`)).body)["external_references"]).toEqual([]);
    api.sim.sim.settle();
    const next = await api.walk("/v1/threats", { cursor: lastCursor });
    expect(next.items.map((item) => item["id"])).toEqual([id]);
    expect(next.items[0]?.["external_references"]).toMatchObject([{ system: "github", ...ref }]);
  });

  test("External references rule 6: 404 resource/not-found for no such threat; nothing is written", async () => {
    const api = await open();
    api.problem(
      await link(api, "11111111-2222-4333-8444-555555555555", "github", ref),
      "resource/not-found",
      404,
    );
    expect(api.sim.sim.state().pendingAsyncWrites).toBe(0);
  });

  test("External references rule 7: no unlink; a link is overwritten with a correct value", async () => {
    const api = await open();
    const id = api.sim.sim.threatIds()[6] ?? "";
    expect((await api.call("DELETE", `/v1/threats/${id}/external-references/github`)).status).toBe(404);
    await link(api, id, "github", ref);
    await link(api, id, "github", { external_id: "acme/security#9", url: "https://github.example/9" });
    api.sim.sim.settle();
    expect(api.sim.sim.getThreat(id)?.external_references.map((r) => r.external_id)).toEqual([
      "acme/security#9",
    ]);
  });

  test("External references: system must be 1 to 64 characters; external_id and url are required strings (422)", async () => {
    const api = await open();
    const id = api.sim.sim.threatIds()[7] ?? "";
    api.problem(await link(api, id, "x".repeat(65), ref), "request/validation", 422);
    api.problem(await link(api, id, "", ref), "request/validation", 422);
    expect((await link(api, id, "é".repeat(64), ref)).status).toBe(204);
    for (const body of [
      { external_id: "a" },
      { url: "u" },
      { external_id: 1, url: "u" },
      { ...ref, extra: true },
    ]) {
      api.problem(await link(api, id, "github", body), "request/validation", 422);
    }
  });
});
