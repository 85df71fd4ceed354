import { cp, mkdtemp, readFile, readdir, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { importLegacyState, openStateImporting, type ImportTarget } from "../../src/state-import/index.js";
import { StateError } from "../../src/state/index.js";

/**
 * The old store's recovery rules, as the import keeps them: a journal's torn last line is skipped
 * only in the newest generation; a damaged line before a journal's end, a torn line in an older
 * generation, a gap in the commit numbers or a snapshot that does not decode is `state_corrupt`,
 * and nothing is imported nor changed on disk.
 */

const FIXTURES = join(import.meta.dirname, "fixtures");

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function copyOf(fixture: string): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), "threatbridge-import-damage-"));
  await cp(join(FIXTURES, fixture), dir, { recursive: true });
  return join(dir, "state.json");
}

/** The rows an import of `path` writes, by collection and key, and its meta. */
async function imported(path: string): Promise<{ rows: Map<string, unknown>; meta: Map<string, unknown> }> {
  const rows = new Map<string, unknown>();
  const meta = new Map<string, unknown>();
  const target: ImportTarget = {
    rows: (collection) => ({ set: (key, value) => rows.set(`${collection}/${key}`, value) }),
    setMeta: (key, value) => meta.set(key, value),
    begin: () => undefined,
  };
  expect(await importLegacyState(path, target, { readOnly: true })).toBe(true);
  return { rows, meta };
}

/** The open of `path` is refused with state_corrupt (matching `message`) and leaves every file as it was. */
async function expectRefused(path: string, message: RegExp): Promise<void> {
  const names = (await readdir(dir ?? "")).sort();
  const before = await Promise.all(names.map((name) => readFile(join(dir ?? "", name))));
  const refused = await openStateImporting(path).catch((err: unknown) => err);
  expect(refused).toBeInstanceOf(StateError);
  expect((refused as StateError).code).toBe("state_corrupt");
  expect((refused as StateError).message).toMatch(message);
  expect((await readdir(dir ?? "")).sort()).toEqual(names);
  expect(await Promise.all(names.map((name) => readFile(join(dir ?? "", name))))).toEqual(before);
}

function line(entry: unknown): string {
  const json = JSON.stringify(entry);
  return `${crc32(json).toString(16).padStart(8, "0")} ${json}\n`;
}

describe("journal recovery rules of the store before SQLite", () => {
  it("a damaged line before a journal's end is state_corrupt, and nothing is changed", async () => {
    const path = await copyOf("threat-8");
    const journal = `${path}.journal.1`;
    const lines = (await readFile(journal, "utf8")).split("\n");
    lines[3] = (lines[3] ?? "").replace('"s":', '"s" :');
    await writeFile(journal, lines.join("\n"));
    await expectRefused(path, /journal\.1 has a damaged line before its end/);
  });

  it("a torn last line in a journal older than the newest is state_corrupt", async () => {
    const path = await copyOf("threat-8-rich");
    const journal = `${path}.journal.1`;
    const text = await readFile(journal, "utf8");
    await truncate(journal, Buffer.byteLength(text.slice(0, text.lastIndexOf("\n", text.length - 2) + 30)));
    await expectRefused(path, /journal\.1 has a damaged line before its end/);
  });

  it("a gap in the commit numbers (a generation missing) is state_corrupt", async () => {
    const path = await copyOf("threat-8-rich");
    await rm(`${path}.journal.1`);
    await expectRefused(path, /journal\.2 skips from commit 7 to \d+/);
  });

  it("the newest journal's torn last line is skipped: the commits before it are imported", async () => {
    const path = await copyOf("threat-8-edges");
    const { rows, meta } = await imported(path);
    // Commit 19 is the last whole line; the torn one after it repeats a prefix of commit 18.
    expect(meta.get("seq")).toBe(19);
    expect(rows.has("threats/t9")).toBe(true);
    expect(rows.has("threats/t3")).toBe(false);
  });

  it("a journal of a generation before the snapshot's is inside it: not read, even when it is garbage", async () => {
    const path = await copyOf("threat-8-edges");
    await writeFile(`${path}.journal.2`, "not a journal at all\n\nstill not\n");
    await expect(imported(path)).resolves.toMatchObject({
      meta: new Map<string, unknown>([
        ["seq", 19],
        ["cursors", { threats: "c18" }],
      ]),
    });
  });

  it("journals without a snapshot are imported from the first commit", async () => {
    dir = await mkdtemp(join(tmpdir(), "threatbridge-import-damage-"));
    const path = join(dir, "state.json");
    const threat = { status: "unsolved", severity: 3, assetId: null, updatedAt: "2026-11-01T00:00:00.000Z" };
    await writeFile(
      `${path}.journal.1`,
      line({ s: 1, c: [["s", "threats", "t1", threat]], m: { seq: 1 } }) +
        line({ s: 2, c: [["s", "assets", "a1", { name: "host" }]], m: { seq: 2 } }),
    );
    const { rows, meta } = await imported(path);
    expect([...rows]).toEqual([
      ["threats/t1", threat],
      ["assets/a1", { name: "host" }],
    ]);
    expect(meta.get("seq")).toBe(2);
  });
});

/** The parts of the codec fixture's snapshot the damages below change. */
interface Doc {
  collections: {
    groups: { crc: string };
    threats: {
      codec: string;
      ids: string[];
      status: string;
      severity: string;
      colPack: string;
      slicePacks: string[];
    };
  };
}

describe("a store version 7 snapshot that does not decode is state_corrupt, untouched", () => {
  const damages: [string, (doc: Doc) => void, RegExp][] = [
    [
      "the groups' pack does not match its CRC-32",
      (d) => (d.collections.groups.crc = "00000000"),
      /collection groups: its pack does not match its CRC-32/,
    ],
    [
      "a slice column does not match its CRC-32",
      (d) => {
        const pack = d.collections.threats.slicePacks[0] ?? "";
        const at = pack.length - 10;
        d.collections.threats.slicePacks[0] = `${pack.slice(0, at)}${pack[at] === "A" ? "B" : "A"}${pack.slice(at + 1)}`;
      },
      /slice column "project" does not match its CRC-32/,
    ],
    [
      "colPack does not inflate",
      (d) => (d.collections.threats.colPack = "12:AAAA"),
      /colPack does not decode/,
    ],
    [
      "a status index outside the table",
      (d) => (d.collections.threats.status = "09000"),
      /threat t2: its status/,
    ],
    [
      "a column one cell short",
      (d) => (d.collections.threats.severity = "1234"),
      /column severity has 4 cells, not 5/,
    ],
    ["a threat id twice", (d) => (d.collections.threats.ids[1] = "t1"), /threat t1 appears twice/],
    [
      "a codec of another format",
      (d) => (d.collections.threats.codec = "threat-7"),
      /collections\.threats\.codec/,
    ],
  ];
  for (const [what, damage, message] of damages)
    it(`${what}`, async () => {
      const path = await copyOf("threat-8-codec");
      const doc = JSON.parse(await readFile(path, "utf8")) as Doc;
      damage(doc);
      await writeFile(path, JSON.stringify(doc, null, 2));
      await expectRefused(path, message);
    });

  it("a snapshot that is not JSON", async () => {
    const path = await copyOf("threat-8-codec");
    await writeFile(path, (await readFile(path, "utf8")).slice(0, 400));
    await expectRefused(path, /state file .* is not valid JSON/);
  });
});

describe("a snapshot whose store version and codecs disagree (no release wrote it) is state_corrupt, untouched", () => {
  type Edit = (doc: { version: number; collections: Record<string, Record<string, unknown>> }) => void;
  const damages: [string, string, Edit, RegExp][] = [
    [
      "version 7 with threats of codec threat-4",
      "threat-4-v3",
      (d) => (d.version = 7),
      /collections\.threats\.codec: store version 7 holds no codec "threat-4"/,
    ],
    [
      "version 6 with threats of codec threat-8",
      "threat-8-codec",
      (d) => (d.version = 6),
      /collections\.threats\.codec: store version 6 holds no codec "threat-8"/,
    ],
    [
      "version 3 with a raw-pack",
      "threat-4-v6",
      (d) => (d.version = 3),
      /collections\.groups\.codec: store version 3 holds no codec "raw-pack"/,
    ],
    [
      "a version no release wrote",
      "threat-8-codec",
      (d) => (d.version = 8),
      /version: a store version not read/,
    ],
    [
      "a threat-4 block with an SLA column",
      "threat-4-v3",
      (d) => (d.collections["threats"] = { ...d.collections["threats"], slaSince: [] }),
      /codec threat-4 holds no slaSince/,
    ],
    [
      "a threat-4 column written as digits",
      "threat-4-v3",
      (d) => (d.collections["threats"] = { ...d.collections["threats"], severity: "0123" }),
      /column severity is not an array/,
    ],
  ];
  for (const [what, fixture, damage, message] of damages)
    it(`${what}`, async () => {
      const path = await copyOf(fixture);
      const doc = JSON.parse(await readFile(path, "utf8")) as Parameters<Edit>[0];
      damage(doc);
      await writeFile(path, JSON.stringify(doc));
      await expectRefused(path, message);
    });
});
