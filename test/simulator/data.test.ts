import { describe, expect, test } from "vitest";
import { manualClock, simulatorPerTest } from "./helpers.js";

const open = simulatorPerTest();
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const THREAT_FIELDS = [
  "id",
  "name",
  "description",
  "severity",
  "module",
  "asset_id",
  "status",
  "status_note",
  "note",
  "age_days",
  "first_seen_at",
  "status_changed_at",
  "updated_at",
  "stream_position",
  "module_data",
  "external_references",
];
const ASSET_FIELDS = [
  "id",
  "name",
  "type",
  "business_value",
  "public_facing",
  "properties",
  "first_seen_at",
  "modules",
  "updated_at",
  "stream_position",
  "deleted",
  "deleted_at",
];

describe("Seeded data", () => {
  test("the same seed and clock give the same streams; another seed gives other data", async () => {
    const a = await open({ seed: 7, clock: manualClock() });
    const b = await open({ seed: 7, clock: manualClock() });
    const c = await open({ seed: 8, clock: manualClock() });
    const [wa, wb, wc] = await Promise.all([
      a.walk("/v1/threats"),
      b.walk("/v1/threats"),
      c.walk("/v1/threats"),
    ]);
    expect(wa.items).toEqual(wb.items);
    expect(wc.items.map((i) => i["id"])).not.toEqual(wa.items.map((i) => i["id"]));
    expect((await a.walk("/v1/assets")).items).toEqual((await b.walk("/v1/assets")).items);
  });

  test("Resources: threats carry the documented field names, v4 UUID ids and external_references []", async () => {
    const api = await open();
    const { items } = await api.walk("/v1/threats");
    expect(items).toHaveLength(150);
    for (const item of items) {
      expect(Object.keys(item)).toEqual(THREAT_FIELDS);
      expect(item["id"]).toMatch(UUID_V4);
      expect(item["asset_id"]).toMatch(UUID_V4);
      expect(item["external_references"]).toEqual([]);
    }
  });

  test("Resources: assets carry the documented field names and the types domain, ip, tenant, account, person", async () => {
    const api = await open();
    const { items } = await api.walk("/v1/assets");
    expect(items).toHaveLength(40);
    for (const item of items) expect(Object.keys(item)).toEqual(ASSET_FIELDS);
    const types = new Set(items.map((item) => item["type"]));
    for (const type of ["domain", "ip", "tenant", "account", "person"]) expect(types).toContain(type);
  });

  test("Threat: every severity and status occurs, mostly unsolved", async () => {
    const api = await open();
    const { items } = await api.walk("/v1/threats");
    const severities = new Set(items.map((item) => item["severity"]));
    expect([...severities].sort()).toEqual(["critical", "high", "informational", "low", "medium"]);
    const statuses = items.map((item) => String(item["status"]));
    expect(new Set(statuses)).toEqual(
      new Set(["unsolved", "solved", "false_positive", "accepted", "pending"]),
    );
    expect(statuses.filter((s) => s === "unsolved").length).toBeGreaterThan(items.length / 2);
    for (const item of items.filter((i) => i["status"] === "accepted"))
      expect(item["status_note"]).not.toBe("");
  });

  test("Threat: module_data is an object with a non-null value for lcm (or null without enrichment), null otherwise", async () => {
    const api = await open();
    const { items } = await api.walk("/v1/threats");
    const lcm = items.filter((item) => item["module"] === "lcm");
    const enriched = lcm.filter((item) => item["module_data"] !== null);
    expect(enriched.length).toBeGreaterThan(0);
    expect(lcm.length).toBeGreaterThan(enriched.length);
    for (const item of enriched) {
      expect(Object.values(item["module_data"] ?? {}).some((value) => value !== null)).toBe(true);
    }
    for (const item of items.filter((i) => i["module"] !== "lcm")) expect(item["module_data"]).toBeNull();
    expect(new Set(items.map((item) => item["module"])).size).toBeGreaterThanOrEqual(5);
  });

  test("Threat: some names and descriptions carry @mentions, #12 references and HTML", async () => {
    const api = await open();
    const { items } = await api.walk("/v1/threats");
    const text = items.map((item) => `${String(item["name"])} ${String(item["description"])}`);
    expect(text.some((t) => /@[a-z]/.test(t))).toBe(true);
    expect(text.some((t) => t.includes("#12"))).toBe(true);
    expect(text.some((t) => t.includes("<b>"))).toBe(true);
  });

  test("Asset: relations link tenants to accounts and domains to IPs", async () => {
    const api = await open();
    const { items } = await api.walk("/v1/assets");
    const typeOf = new Map(items.map((item) => [String(item["id"]), String(item["type"])]));
    const pairs = new Set<string>();
    for (const item of items) {
      const neighbours = (await api.walk(`/v1/assets/${String(item["id"])}/related`)).items;
      for (const n of neighbours) pairs.add(`${String(item["type"])}-${typeOf.get(String(n["id"])) ?? ""}`);
    }
    expect(pairs).toContain("tenant-account");
    expect(pairs).toContain("domain-ip");
  });

  test("GET /v1/threats/{threat_id}: a bare object with the list item's fields and stream_position null", async () => {
    const api = await open();
    const item = (await api.page("/v1/threats?limit=1")).items[0] ?? {};
    const single = await api.call("GET", `/v1/threats/${String(item["id"])}`);
    expect(single.body).toEqual({ ...item, stream_position: null });
  });
});
