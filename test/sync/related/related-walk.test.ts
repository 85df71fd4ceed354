import { describe, expect, it } from "vitest";
import { Asset, PlatformStoppedError, type StreamPage } from "../../../src/platform/index.js";
import { walkRelated } from "../../../src/sync/related/index.js";
import { makeConfig } from "../harness.js";
import { NotFoundProblem } from "../fake-platform.js";

/** The related walk read as the spec's list (spec, "GET /v1/assets/{asset_id}/related"). */

const SELF = "00000000-0000-4000-8000-0000000000a0";
const id = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
const fields = makeConfig().fields.asset;

function asset(n: number, extra: Record<string, unknown> = {}): Asset {
  return Asset.parse({
    id: id(n),
    name: `host-${n}`,
    type: "domain",
    updated_at: "2026-11-01T00:00:00Z",
    stream_position: "p",
    deleted: false,
    ...extra,
  });
}

async function* pages(...list: Array<Array<Asset | "bad">>): AsyncIterable<StreamPage<Asset>> {
  for (const [i, items] of list.entries()) {
    yield {
      items: items.map((item) =>
        item === "bad"
          ? { ok: false, id: null, raw: {}, error: "id: expected a string" }
          : { ok: true, value: item },
      ),
      nextCursor: i < list.length - 1 ? String(i + 1) : null,
      resumeCursor: String(i + 1),
    };
  }
}

async function* failing(error: unknown): AsyncIterable<StreamPage<Asset>> {
  yield* [];
  throw error;
}

describe("the related walk", () => {
  it("reads every page; at-least-once delivery: an id seen again is listed once, its last version in its first place", async () => {
    const walk = await walkRelated(
      pages([asset(1), asset(2)], [], [asset(1, { name: "renamed" }), asset(3)]),
      SELF,
      10,
      fields,
    );
    expect(walk).toEqual({
      outcome: "listed",
      view: {
        assets: [
          { id: id(1), name: "renamed", type: "domain" },
          { id: id(2), name: "host-2", type: "domain" },
          { id: id(3), name: "host-3", type: "domain" },
        ],
        more: 0,
      },
    });
  });

  it("rules 2 and 3 held even against a platform that breaks them: the asset itself and tombstones are not listed", async () => {
    const self = Asset.parse({ ...asset(0), id: SELF });
    const walk = await walkRelated(
      pages([self, asset(1, { deleted: true, deleted_at: "2026-11-02T00:00:00Z" }), asset(2), "bad"]),
      SELF,
      10,
      fields,
    );
    expect(walk.outcome === "listed" && walk.view.assets.map((a) => a.id)).toEqual([id(2)]);
  });

  it("more than N: the first N, and how many more", async () => {
    const walk = await walkRelated(pages([asset(1), asset(2), asset(3)], [asset(4)]), SELF, 2, fields);
    expect(walk.outcome === "listed" && walk.view).toEqual({
      assets: [
        { id: id(1), name: "host-1", type: "domain" },
        { id: id(2), name: "host-2", type: "domain" },
      ],
      more: 2,
    });
  });

  it("rule 4: an empty assets array lists none", async () => {
    expect(await walkRelated(pages([]), SELF, 10, fields)).toEqual({
      outcome: "none",
      view: { assets: [], more: 0 },
    });
  });

  it("rule 5: 404 resource/not-found (the asset is not there) lists none; any other failure is a failure", async () => {
    expect(await walkRelated(failing(new NotFoundProblem()), SELF, 10, fields)).toEqual({
      outcome: "none",
      view: { assets: [], more: 0 },
    });
    const error = new Error("500 after retries");
    expect(await walkRelated(failing(error), SELF, 10, fields)).toEqual({ outcome: "failed", error });
  });

  it("a stop (SIGTERM) is not a failed walk: it ends the work, so no write goes out without its list", async () => {
    const stopped = new PlatformStoppedError({ method: "GET", path: `/v1/assets/${SELF}/related` });
    await expect(walkRelated(failing(stopped), SELF, 10, fields)).rejects.toBe(stopped);
  });
});
