import fc from "fast-check";
import { expect, test } from "vitest";
import { openApi, type Api } from "./helpers.js";

type Item = Record<string, unknown>;

/** A client that follows the spec's rules: de-duplicate on id, drop threats of tombstones, resume from the last non-null cursor. */
class FollowingClient {
  readonly assets = new Map<string, Item>();
  readonly threats = new Map<string, Item>();
  private assetCursor: string | null = null;
  private threatCursor: string | null = null;

  constructor(private readonly api: Api) {}

  async poll(limit: number, maxPages: number): Promise<void> {
    const assets = await this.walk("/v1/assets", this.assetCursor, limit, maxPages);
    this.assetCursor = assets.cursor;
    for (const asset of assets.items) {
      const id = String(asset["id"]);
      if (asset["deleted"] === true) {
        this.assets.delete(id);
        for (const [threatId, threat] of this.threats)
          if (threat["asset_id"] === id) this.threats.delete(threatId);
      } else this.assets.set(id, asset);
    }
    const threats = await this.walk("/v1/threats", this.threatCursor, limit, maxPages);
    this.threatCursor = threats.cursor;
    for (const threat of threats.items) this.threats.set(String(threat["id"]), threat);
  }

  private async walk(endpoint: string, from: string | null, limit: number, maxPages: number) {
    const items: Item[] = [];
    let cursor = from;
    let last = "";
    for (let page = 0; page < maxPages; page += 1) {
      const query = `${endpoint}?limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
      const answer = await this.api.page(query);
      for (const item of answer.items) {
        const position = String(item["stream_position"]);
        expect(position >= last).toBe(true);
        last = position;
      }
      items.push(...answer.items);
      if (answer.next === null) break;
      cursor = answer.next;
    }
    return { items, cursor };
  }
}

const command = fc.oneof(
  fc.record({
    kind: fc.constant("patch" as const),
    index: fc.nat(40),
    status: fc.constantFrom("unsolved", "solved", "false_positive"),
  }),
  fc.record({ kind: fc.constant("note" as const), index: fc.nat(40), note: fc.constantFrom("", "a", "b") }),
  fc.record({ kind: fc.constant("remove" as const), index: fc.nat(10) }),
  fc.record({ kind: fc.constant("restore" as const), index: fc.nat(10) }),
  fc.record({ kind: fc.constant("add" as const), index: fc.nat(10) }),
  fc.record({ kind: fc.constant("scan" as const) }),
  fc.record({
    kind: fc.constant("poll" as const),
    limit: fc.integer({ min: 1, max: 20 }),
    pages: fc.integer({ min: 1, max: 3 }),
  }),
);

test("Events and list rules 3 and 6: a client that de-duplicates and resumes from its last cursor converges on the platform state", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(command, { maxLength: 25 }),
      fc.constantFrom(0, 0.3, 1),
      async (commands, duplicateRate) => {
        const api = await openApi({ assets: 10, threats: 30, asyncWriteDelayMs: 60_000 });
        try {
          const { sim } = api.sim;
          sim.setFaults({ duplicate_rate: duplicateRate });
          const client = new FollowingClient(api);
          for (const c of commands) {
            const threatId =
              sim.threatIds()[c.kind === "patch" || c.kind === "note" ? c.index % 30 : 0] ?? "";
            const assetId = sim.assetIds()[("index" in c ? c.index : 0) % 10] ?? "";
            if (c.kind === "patch")
              await api.call("PATCH", `/v1/threats/${threatId}`, { body: { status: c.status } });
            if (c.kind === "note")
              await api.call("POST", `/v1/threats/${threatId}/update-note`, { body: { note: c.note } });
            if (c.kind === "remove") sim.removeAsset(assetId);
            if (c.kind === "restore") sim.restoreAsset(assetId);
            if (c.kind === "add") sim.addThreat({ asset_id: assetId });
            if (c.kind === "scan") sim.scan("random");
            sim.settle();
            if (c.kind === "poll") await client.poll(c.limit, c.pages);
          }
          await client.poll(500, 1_000);
          const visible = sim
            .threatIds()
            .map((id) => sim.getThreat(id))
            .filter((t) => t !== null && sim.getAsset(t.asset_id)?.deleted === false);
          expect([...client.threats.keys()].sort()).toEqual(visible.map((t) => t?.id).sort());
          for (const threat of visible) {
            const local = client.threats.get(threat?.id ?? "");
            expect({ ...local, stream_position: null }).toEqual(threat);
          }
          expect([...client.assets.keys()].sort()).toEqual(
            sim
              .assetIds()
              .filter((id) => sim.getAsset(id)?.deleted === false)
              .sort(),
          );
        } finally {
          await api.sim.close();
        }
      },
    ),
    { numRuns: 20 },
  );
});
