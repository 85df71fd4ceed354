import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  PlatformProblem,
  PlatformResponseError,
  type StreamPage,
  type Threat,
} from "../../src/platform/index.js";
import { newStream, startFakePlatform, type FakePlatform } from "./fake-platform.js";
import { harness, rejection, threat, uuidOf, type Harness } from "./client-harness.js";

let fake: FakePlatform | undefined;
let h: Harness | undefined;

async function setup(
  items: number,
  overrides: Parameters<typeof harness>[1] = {},
): Promise<{ f: FakePlatform; h: Harness }> {
  fake = await startFakePlatform();
  for (let i = 0; i < items; i++) fake.streams["/v1/threats"].log.push(threat(uuidOf(i)));
  h = harness(fake, { pageLimit: 3, ...overrides });
  return { f: fake, h };
}

afterEach(async () => {
  await h?.client.close();
  h = undefined;
  if (fake !== undefined) {
    expect(fake.unexpected).toEqual([]);
    await fake.close();
    fake = undefined;
  }
});

async function collect<T>(pages: AsyncIterable<StreamPage<T>>): Promise<StreamPage<T>[]> {
  const out: StreamPage<T>[] = [];
  for await (const page of pages) out.push(page);
  return out;
}

function ids(pages: StreamPage<Threat>[]): string[] {
  return pages.flatMap((p) => p.items.flatMap((i) => (i.ok ? [i.value.id] : [])));
}

describe("platform streams (spec: Common list behaviour)", () => {
  it("list rule 4/6: follows next_cursor until null and keeps the last non-null cursor as resumeCursor", async () => {
    const { f, h } = await setup(7);
    const pages = await collect(h.client.streamThreats(null));
    expect(ids(pages)).toEqual(Array.from({ length: 7 }, (_, i) => uuidOf(i)));
    expect(pages.map((p) => [p.nextCursor, p.resumeCursor])).toEqual([
      ["c3", "c3"],
      ["c6", "c6"],
      [null, "c6"],
    ]);
    expect(f.requests.map((r) => r.query.get("cursor"))).toEqual([null, "c3", "c6"]);
    expect(f.requests.every((r) => r.query.get("limit") === "3")).toBe(true);
  });

  it("list rule 6: when the very first page ends the stream, the start cursor is the resume cursor", async () => {
    const { h } = await setup(5);
    const pages = await collect(h.client.streamThreats("c4"));
    expect(pages).toHaveLength(1);
    expect(pages[0]).toMatchObject({ nextCursor: null, resumeCursor: "c4" });
    expect(ids(pages)).toEqual([uuidOf(4)]);
  });

  it("list rule 6: resuming from the saved cursor returns only what came after it", async () => {
    const { f, h } = await setup(4);
    const first = await collect(h.client.streamThreats(null));
    const saved = first.at(-1)?.resumeCursor ?? null;
    f.streams["/v1/threats"].log.push(threat(uuidOf(100)));
    const second = await collect(h.client.streamThreats(saved));
    expect(ids(second)).toEqual([uuidOf(3), uuidOf(100)]);
  });

  it("list rule 5: a bad cursor answers 400 request/invalid-cursor", async () => {
    const { h } = await setup(1);
    const err = await rejection(collect(h.client.streamThreats("garbage")), PlatformProblem);
    expect(err.type).toBe("request/invalid-cursor");
  });

  it.each(["threats", "items", "data"])(
    "the threats array is found under %s (the one array besides pagination)",
    async (name) => {
      const { f, h } = await setup(2);
      f.streams["/v1/threats"].arrayProperty = name;
      expect(ids(await collect(h.client.streamThreats(null)))).toEqual([uuidOf(0), uuidOf(1)]);
    },
  );

  it("a page with no array, or with two, fails with a clear PlatformResponseError", async () => {
    const { f, h } = await setup(2);
    const s = f.streams["/v1/threats"];
    s.envelope = (items, next) => ({ count: items.length, pagination: { next_cursor: next } });
    const none = await rejection(collect(h.client.streamThreats(null)), PlatformResponseError);
    expect(none.message).toContain("no array property");
    s.envelope = (items, next) => ({ threats: items, warnings: [], pagination: { next_cursor: next } });
    const two = await rejection(collect(h.client.streamThreats(null)), PlatformResponseError);
    expect(two.message).toContain("threats, warnings");
  });

  it("a malformed envelope (no pagination, or not an object) throws", async () => {
    const { f, h } = await setup(2);
    const s = f.streams["/v1/threats"];
    s.envelope = (items) => ({ threats: items });
    await rejection(collect(h.client.streamThreats(null)), PlatformResponseError);
    s.envelope = (items) => items;
    await rejection(collect(h.client.streamThreats(null)), PlatformResponseError);
  });

  it("a malformed item is reported on its own and never aborts the page; unknown fields are kept", async () => {
    const { f, h } = await setup(0);
    const log = f.streams["/v1/threats"].log;
    log.push(threat(uuidOf(1), { severity: "high", brand_new_field: { x: 1 } }));
    log.push({ id: uuidOf(2), status: 42, updated_at: "t" });
    log.push("not an object");
    log.push(threat(uuidOf(3), { status: "some_future_status", external_references: undefined }));
    const items = (await collect(h.client.streamThreats(null))).flatMap((p) => p.items);
    expect(items.map((i) => i.ok)).toEqual([true, false, false, true]);
    const [good, bad, worse, future] = items;
    expect(good?.ok && good.value).toMatchObject({ severity: "high", brand_new_field: { x: 1 } });
    expect(bad).toMatchObject({ ok: false, id: uuidOf(2), raw: { status: 42 } });
    expect(!bad?.ok && bad?.error).toContain("status");
    expect(worse).toMatchObject({ ok: false, id: null, raw: "not an object" });
    expect(future?.ok && future.value).toMatchObject({
      status: "some_future_status",
      external_references: [],
    });
  });

  it("spec Events: items the caller holds in that version (id, updated_at, status) are named, not parsed; others are parsed as before", async () => {
    const { f, h } = await setup(0);
    const log = f.streams["/v1/threats"].log;
    const held = threat(uuidOf(1));
    log.push(held);
    // Held in this version, yet its other fields would fail the schema: it is not parsed at all.
    log.push({ ...threat(uuidOf(2)), external_references: "broken" });
    log.push(threat(uuidOf(3)));
    log.push({ ...threat(uuidOf(1)), status: "solved" }); // a new version of a held threat
    log.push({ id: 7, status: "open", updated_at: "t" }); // no string id: parsed, and malformed
    const versions = new Map([
      [uuidOf(1), `${String(held["updated_at"])} ${String(held["status"])}`],
      [uuidOf(2), `${String(held["updated_at"])} ${String(held["status"])}`],
    ]);
    const pages = await collect(
      h.client.streamThreats(null, (raw) =>
        typeof raw["id"] === "string" &&
        versions.get(raw["id"]) === `${String(raw["updated_at"])} ${String(raw["status"])}`
          ? raw["id"]
          : null,
      ),
    );
    expect(pages.flatMap((p) => p.unchanged ?? [])).toEqual([uuidOf(1), uuidOf(2)]);
    const items = pages.flatMap((p) => p.items);
    expect(
      items.map((i) => (i.ok ? `${i.value.id} ${i.value.status}` : `malformed ${String(i.id)}`)),
    ).toEqual([`${uuidOf(3)} ${String(held["status"])}`, `${uuidOf(1)} solved`, "malformed null"]);
  });

  it("list rule 4: a page whose items are all held already is not an empty page: the walk does not wait", async () => {
    const { h } = await setup(5);
    const pages = await collect(
      h.client.streamThreats(null, (raw) => (typeof raw["id"] === "string" ? raw["id"] : null)),
    );
    expect(pages.map((p) => [p.items.length, p.unchanged?.length])).toEqual([
      [0, 3],
      [0, 2],
    ]);
    expect(h.sleeps).toEqual([]);
  });

  it("list rule 4: an empty page with a cursor waits and asks again until the withheld changes come", async () => {
    const { f, h } = await setup(4, { emptyPageDelayMs: 250 });
    const s = f.streams["/v1/threats"];
    s.withheld = 1;
    s.releaseAfterEmptyPages = 2;
    const pages = await collect(h.client.streamThreats(null));
    expect(ids(pages)).toEqual([0, 1, 2, 3].map(uuidOf));
    expect(pages.map((p) => p.items.length)).toEqual([3, 0, 0, 1]);
    expect(h.sleeps).toEqual([250, 250]);
    expect(pages.at(-1)).toMatchObject({ nextCursor: null, resumeCursor: "c3" });
  });

  it("list rule 4: after maxEmptyPages empty pages in a row the walk ends normally with a resume cursor", async () => {
    const { f, h } = await setup(3, { maxEmptyPages: 4, emptyPageDelayMs: 100 });
    f.streams["/v1/threats"].withheld = 1;
    const pages = await collect(h.client.streamThreats(null));
    expect(ids(pages)).toEqual([0, 1].map(uuidOf));
    expect(pages.map((p) => p.items.length)).toEqual([2, 0, 0, 0, 0]);
    expect(h.sleeps).toEqual([100, 100, 100]);
    expect(pages.at(-1)?.resumeCursor).toBe("c2");
  });

  it("a short page with a cursor is followed at once, without waiting", async () => {
    const { f, h } = await setup(5);
    f.streams["/v1/threats"].withheld = 1;
    f.streams["/v1/threats"].releaseAfterEmptyPages = 1;
    const pages = await collect(h.client.streamThreats(null));
    // The 1-item page carried a cursor and was followed without a wait; only the empty page waited.
    expect(pages.map((p) => p.items.length)).toEqual([3, 1, 0, 1]);
    expect(h.sleeps).toEqual([200]);
  });

  it("assets use the assets property; a tombstone reads deleted, a missing flag reads live", async () => {
    const { f, h } = await setup(0);
    f.streams["/v1/assets"].log.push(
      { id: uuidOf(1), updated_at: "t", stream_position: "p", deleted: true, deleted_at: "t2" },
      { id: uuidOf(2), updated_at: "t", stream_position: 5 },
    );
    const items = (await collect(h.client.streamAssets(null))).flatMap((p) => p.items);
    expect(items).toEqual([
      {
        ok: true,
        value: { id: uuidOf(1), updated_at: "t", stream_position: "p", deleted: true, deleted_at: "t2" },
      },
      { ok: true, value: { id: uuidOf(2), updated_at: "t", stream_position: 5, deleted: false } },
    ]);
  });

  it("pages are fetched lazily: stopping early sends no more requests", async () => {
    const { f, h } = await setup(9);
    for await (const page of h.client.streamThreats(null)) {
      expect(page.items).toHaveLength(3);
      break;
    }
    expect(f.requests).toHaveLength(1);
  });

  it("list rules 3, 4, 6: any page size, withholding and duplicates, resumed in two cycles, lose nothing", async () => {
    const { f } = await setup(0);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 15 }), { maxLength: 25 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 25 }),
        async (rows, limit, withheld, releaseAfter, cut) => {
          // Rows are ids (repeats = re-deliveries); the last occurrence of an id carries its final version.
          const log = rows.map((n, i) => threat(uuidOf(n), { version: i }));
          const s = newStream("threats");
          s.log = log.slice(0, Math.min(cut, log.length));
          s.withheld = Math.min(withheld, s.log.length);
          s.releaseAfterEmptyPages = releaseAfter;
          f.streams["/v1/threats"] = s;
          const run = harness(f, { pageLimit: limit, maxEmptyPages: 3 });
          const latest = new Map<string, unknown>();
          let resume: string | null = null;
          try {
            for (const _cycle of [1, 2]) {
              for await (const page of run.client.streamThreats(resume)) {
                for (const item of page.items) if (item.ok) latest.set(item.value.id, item.value["version"]);
                resume = page.resumeCursor;
              }
              // Between cycles the platform catches up: everything is released and visible.
              s.log = log;
              s.withheld = 0;
            }
          } finally {
            await run.client.close();
          }
          const expected = new Map<string, unknown>();
          log.forEach((t, i) => expected.set(String(t["id"]), i));
          expect(latest).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });
});
