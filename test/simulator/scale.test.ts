import { afterAll, beforeAll, expect, test } from "vitest";
import { openApi, type Api } from "./helpers.js";

let api: Api;
beforeAll(async () => {
  api = await openApi({ threats: 100_000, assets: 2_000 });
});
afterAll(async () => {
  await api.sim.close();
});

interface LeanPage {
  ids: string[];
  positions: string[];
  next: string | null;
}

/** Reads only what the walk checks, so the test measures the simulator rather than the test's parsing. */
async function leanPage(url: string, token: string): Promise<LeanPage> {
  const answer = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (answer.status !== 200) throw new Error(`GET ${url}: ${answer.status}`);
  const body: unknown = await answer.json();
  if (typeof body !== "object" || body === null || !("threats" in body) || !("pagination" in body)) {
    throw new Error("not a threats page");
  }
  const { threats, pagination } = body;
  if (!Array.isArray(threats) || typeof pagination !== "object" || pagination === null)
    throw new Error("bad page");
  const next = "next_cursor" in pagination ? pagination.next_cursor : undefined;
  if (next !== null && typeof next !== "string") throw new Error("bad next_cursor");
  const ids: string[] = [];
  const positions: string[] = [];
  for (const item of threats) {
    if (typeof item !== "object" || item === null || !("id" in item) || !("stream_position" in item)) {
      throw new Error("bad item");
    }
    ids.push(String(item.id));
    positions.push(String(item.stream_position));
  }
  return { ids, positions, next };
}

test("Common list behaviour rules 1 and 4 at scale: 100,000 threats walk in order with limit 500 until next_cursor null", async () => {
  const token = await api.token();
  const seen = new Set<string>();
  let cursor: string | null = null;
  let previous = "";
  let ordered = true;
  let pages = 0;
  // Bounded: 100,000 / 500 = 200 pages, plus the final empty page.
  for (; pages < 1_000; pages += 1) {
    const query: string = cursor === null ? "" : `&cursor=${cursor}`;
    const page = await leanPage(`${api.sim.url}/v1/threats?limit=500${query}`, token);
    for (const position of page.positions) {
      if (position < previous) ordered = false;
      previous = position;
    }
    for (const id of page.ids) seen.add(id);
    if (page.next === null) break;
    cursor = page.next;
  }
  expect(ordered).toBe(true);
  expect(seen.size).toBe(100_000);
  expect(api.sim.sim.threatIds().every((id) => seen.has(id))).toBe(true);
  expect(pages).toBe(200);
});
