import { newRows, type Rows } from "./rows.js";
import { z } from "zod";
import type { Json } from "./journal-line.js";
import type { StoreView } from "./snapshot-codec.js";
import { parseStateText } from "./state-file.js";

/**
 * Converts today's version-1 state file (schema.ts, read through its migrations and schema by
 * state-file.ts) into the journaled store's collections and meta, losslessly:
 * - collections `threats`, `assets`, `queue`, `intents`, `retryThreats`, `retryAssets`, `groups`;
 * - meta `cursors`, `githubSince`, `etags`, `seq`, `lastCycle`, `renderKey`, `platformNotBefore`,
 *   `cursorRefused` and `features` (each when set), and `migratedFrom: 1`.
 * Which of these the reshaped engine keeps is its call.
 */
const JsonValue = z.json();

export function migrateV1Text(path: string, text: string): StoreView {
  const state = parseStateText(path, text);
  // Schema-parsed data is plain JSON; the round trip drops `undefined` optional fields, and the
  // JSON schema gives it the Json type without a cast (a one-time cost at migration).
  const json = (value: unknown): Json => JsonValue.parse(JSON.parse(JSON.stringify(value)));
  const collection = (name: string, record: Record<string, unknown>): Rows => {
    const rows = newRows(name);
    for (const [key, value] of Object.entries(record)) rows.set(key, json(value));
    return rows;
  };
  const meta = new Map<string, Json>([
    ["cursors", json(state.cursors)],
    ["githubSince", json(state.github.since)],
    ["etags", json(state.github.etags)],
    ["seq", state.seq],
    ["lastCycle", json(state.lastCycle)],
    ["migratedFrom", 1],
  ]);
  if (state.renderKey !== undefined) meta.set("renderKey", state.renderKey);
  if (state.platformNotBefore !== undefined) meta.set("platformNotBefore", state.platformNotBefore);
  if (state.cursorRefused !== undefined) meta.set("cursorRefused", json(state.cursorRefused));
  if (state.features !== undefined) meta.set("features", json(state.features));
  return {
    gen: 0,
    seq: 0,
    meta,
    collections: new Map([
      // `gone` is kept only while true (nothing is stored that is never read).
      [
        "threats",
        collection(
          "threats",
          mapValues(state.threats, ({ gone, ...rest }) => (gone ? { ...rest, gone } : rest)),
        ),
      ],
      ["assets", collection("assets", state.assets)],
      ["queue", collection("queue", state.queue)],
      ["intents", collection("intents", state.intents)],
      ["retryThreats", collection("retryThreats", state.retry.threats)],
      ["retryAssets", collection("retryAssets", state.retry.assets)],
      // A version-1 file written with grouping on holds its groups (their parents' numbers above
      // all): dropped, the next cycle would plan a second parent for every group.
      ["groups", collection("groups", state.groups ?? {})],
    ]),
  };
}

function mapValues<T, U>(record: Record<string, T>, f: (value: T) => U): Record<string, U> {
  const out: Record<string, U> = {};
  for (const [key, value] of Object.entries(record)) out[key] = f(value);
  return out;
}
