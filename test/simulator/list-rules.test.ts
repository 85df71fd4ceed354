import { describe, expect, test } from "vitest";
import { manualClock, simulatorPerTest } from "./helpers.js";

const open = simulatorPerTest();

function positions(items: ReadonlyArray<Record<string, unknown>>): string[] {
  return items.map((item) => String(item["stream_position"]));
}

function nonDecreasing(values: readonly string[]): boolean {
  return values.every((value, i) => i === 0 || (values[i - 1] ?? "") <= value);
}

describe("Common list behaviour", () => {
  test("Common list behaviour rule 1: one stable order, oldest change first, positions non-decreasing with ties", async () => {
    const api = await open();
    for (const endpoint of ["/v1/threats", "/v1/assets"]) {
      const first = await api.walk(endpoint, { limit: 7 });
      const second = await api.walk(endpoint, { limit: 50 });
      expect(first.items.map((i) => i["id"])).toEqual(second.items.map((i) => i["id"]));
      expect(nonDecreasing(positions(first.items))).toBe(true);
      expect(new Set(positions(first.items)).size).toBeLessThan(first.items.length);
    }
  });

  test("Common list behaviour rule 2: the order is processing order, not updated_at", async () => {
    const api = await open();
    const { items } = await api.walk("/v1/threats");
    const updated = items.map((item) => String(item["updated_at"]));
    const inversions = updated.filter((value, i) => i > 0 && value < (updated[i - 1] ?? ""));
    expect(inversions.length).toBeGreaterThan(0);
  });

  test("Common list behaviour rule 3: at-least-once delivery re-delivers items; de-duplicating on id gives every item", async () => {
    const api = await open();
    api.sim.sim.setFaults({ duplicate_rate: 1 });
    const { items } = await api.walk("/v1/threats", { limit: 100 });
    const ids = items.map((item) => String(item["id"]));
    expect(items.length).toBeGreaterThan(150);
    expect(new Set(ids).size).toBe(150);
    const byId = new Map<string, Array<Record<string, unknown>>>();
    for (const item of items) byId.set(String(item["id"]), [...(byId.get(String(item["id"])) ?? []), item]);
    const repeated = [...byId.values()].find((copies) => copies.length > 1) ?? [];
    const [a, b] = repeated;
    expect(a?.["updated_at"]).toBe(b?.["updated_at"]);
    expect(String(b?.["stream_position"]) >= String(a?.["stream_position"])).toBe(true);
  });

  test("Common list behaviour rule 4: a page shorter than limit can still carry a cursor (recent changes withheld)", async () => {
    const clock = manualClock();
    const api = await open({ clock });
    const { lastCursor } = await api.walk("/v1/threats");
    api.sim.sim.setFaults({ withhold_recent_ms: 500 });
    const id = api.sim.sim.threatIds()[0] ?? "";
    await api.call("PATCH", `/v1/threats/${id}`, { body: { status: "false_positive" } });
    const held = await api.page(`/v1/threats?limit=10&cursor=${encodeURIComponent(lastCursor ?? "")}`);
    expect(held.items).toEqual([]);
    expect(held.next).not.toBeNull();
    clock.advance(500);
    const released = await api.page(`/v1/threats?limit=10&cursor=${encodeURIComponent(held.next ?? "")}`);
    expect(released.items.map((item) => item["id"])).toEqual([id]);
  });

  test("Common list behaviour rule 4: only next_cursor null ends the stream; an empty page with a null cursor is the steady state", async () => {
    const api = await open();
    const { lastCursor } = await api.walk("/v1/assets");
    const steady = await api.page(`/v1/assets?cursor=${encodeURIComponent(lastCursor ?? "")}`);
    expect(steady).toEqual({ items: [], next: null, pageSize: 0 });
  });

  test("Common list behaviour rule 5: a cursor does not expire", async () => {
    const clock = manualClock();
    const api = await open({ clock });
    const page = await api.page("/v1/threats?limit=10");
    clock.advance(400 * 86_400_000);
    const later = await api.walk("/v1/threats", { cursor: page.next, token: await api.token() });
    expect(later.items.length).toBe(140);
  });

  test("Common list behaviour rule 5: corrupted, truncated and hand-built cursors answer 400 request/invalid-cursor", async () => {
    const api = await open();
    const { next } = await api.page("/v1/threats?limit=10");
    const cursor = next ?? "";
    const handBuilt = Buffer.from(JSON.stringify({ v: 1, e: "threats", p: 5 })).toString("base64url");
    const flipped = cursor.slice(0, 4) + (cursor[4] === "A" ? "B" : "A") + cursor.slice(5);
    for (const bad of [
      cursor.slice(0, -3),
      cursor.slice(0, 10),
      flipped,
      handBuilt,
      `${handBuilt}.abc`,
      "0",
      "%%%",
    ]) {
      const answer = await api.call("GET", `/v1/threats?cursor=${encodeURIComponent(bad)}`);
      api.problem(answer, "request/invalid-cursor", 400);
    }
  });

  test("Common list behaviour rule 5: a cursor is used only with the endpoint that issued it (other use answers 400)", async () => {
    const api = await open();
    const threats = await api.page("/v1/threats?limit=5");
    const assets = await api.page("/v1/assets?limit=5");
    const assetId = String(assets.items[0]?.["id"]);
    api.problem(
      await api.call("GET", `/v1/assets?cursor=${threats.next ?? ""}`),
      "request/invalid-cursor",
      400,
    );
    api.problem(
      await api.call("GET", `/v1/threats?cursor=${assets.next ?? ""}`),
      "request/invalid-cursor",
      400,
    );
    api.problem(
      await api.call("GET", `/v1/assets/${assetId}/related?cursor=${assets.next ?? ""}`),
      "request/invalid-cursor",
      400,
    );
  });

  test("Common list behaviour rule 6: resuming from the last non-null cursor returns only the changes since then", async () => {
    const api = await open();
    const { lastCursor } = await api.walk("/v1/threats", { limit: 40 });
    const [a, b] = api.sim.sim.threatIds();
    await api.call("PATCH", `/v1/threats/${a ?? ""}`, { body: { status: "unsolved" } });
    await api.call("PATCH", `/v1/threats/${b ?? ""}`, { body: { status: "accepted", status_note: "ok" } });
    const resumed = await api.walk("/v1/threats", { cursor: lastCursor });
    expect(resumed.items.map((item) => item["id"])).toEqual([a, b]);
  });

  test("Common list behaviour: page_size equals the array length; threats in `threats`, assets in `assets`", async () => {
    const api = await open();
    const threats = await api.call("GET", "/v1/threats?limit=33");
    const assets = await api.call("GET", "/v1/assets?limit=7");
    expect(Object.keys(threats.body ?? {})).toEqual(["threats", "pagination"]);
    expect(Object.keys(assets.body ?? {})).toEqual(["assets", "pagination"]);
    expect((await api.page("/v1/threats?limit=33")).pageSize).toBe(33);
    expect((await api.page("/v1/assets?limit=7")).items.length).toBe(7);
  });

  test("Common list behaviour: a changed item is delivered again at its new position, latest version only", async () => {
    const api = await open();
    const id = api.sim.sim.threatIds()[0] ?? "";
    const before = await api.walk("/v1/threats");
    await api.call("PATCH", `/v1/threats/${id}`, { body: { status: "false_positive" } });
    const after = await api.walk("/v1/threats");
    const ids = after.items.map((item) => item["id"]);
    expect(ids.filter((x) => x === id)).toHaveLength(1);
    expect(ids.at(-1)).toBe(id);
    expect(after.items.at(-1)?.["status"]).toBe("false_positive");
    expect(
      String(after.items.at(-1)?.["stream_position"]) >= String(before.items.at(-1)?.["stream_position"]),
    ).toBe(true);
  });

  test("Common list behaviour: default limit is 100", async () => {
    const api = await open();
    expect((await api.page("/v1/threats")).pageSize).toBe(100);
  });
});
