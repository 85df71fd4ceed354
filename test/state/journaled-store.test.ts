import { appendFile, readFile, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  StateError,
  emptyState,
  openJournaledStore,
  type Json,
  type StoreFs,
} from "../../src/state/index.js";
import { nodeStoreFs } from "../../src/state/store-fs.js";
import { withTempDir } from "./helpers.js";
import { MemFs } from "./journal-mem-fs.js";

let dir: string;
let cleanup: () => Promise<void>;
let path: string;

beforeEach(async () => {
  ({ dir, cleanup } = await withTempDir());
  path = join(dir, "state.json");
});
afterEach(async () => {
  await cleanup();
});

function mapped(n: number): Json {
  return {
    status: n % 3 === 0 ? "fixed" : "open",
    severity: n % 5,
    assetId: `asset-${n % 50}`,
    issue: {
      repo: `acme/repo-${n % 4}`,
      number: n + 1,
      url: `https://github.com/acme/repo-${n % 4}/issues/${n + 1}`,
      state: n % 7 === 0 ? "closed" : "open",
      hash: `h${n}`.padEnd(32, "0"),
    },
    link: `acme/repo-${n % 4}#${n + 1}`,
    updatedAt: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
  };
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StateError);
  if (err instanceof StateError) expect(err.code).toBe(code);
}

describe("journaled store on disk", () => {
  it("a resolved commit survives a reopen; files are mode 0600", async () => {
    const store = await openJournaledStore(path);
    store.set("threats", "t1", mapped(1));
    store.set("intents", "i1", { kind: "create", threatId: "t1" });
    store.setMeta("cursor", "c-9");
    await store.commit();
    // No close(): like a process that dies right after the commit resolved.
    const again = await openJournaledStore(path);
    expect(again.get("threats", "t1")).toEqual(mapped(1));
    expect(again.get("intents", "i1")).toEqual({ kind: "create", threatId: "t1" });
    expect(again.getMeta("cursor")).toBe("c-9");
    expect((await stat(`${path}.journal.0`)).mode & 0o777).toBe(0o600);
    await store.close();
    await again.compact();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await again.close();
  });

  it("one commit is one journal line, whatever it holds; a commit with nothing buffered writes nothing", async () => {
    const store = await openJournaledStore(path);
    for (let i = 0; i < 50; i++) store.set("threats", `t${i}`, mapped(i));
    store.delete("threats", "t3");
    await store.commit();
    const journal = `${path}.journal.0`;
    const before = await readFile(journal, "utf8");
    expect(before.split("\n").filter(Boolean)).toHaveLength(1);
    await store.commit();
    expect(await readFile(journal, "utf8")).toBe(before);
    await store.close();
    const again = await openJournaledStore(path);
    expect(again.size("threats")).toBe(49);
    expect(again.get("threats", "t3")).toBeUndefined();
    await again.close();
  });

  it("a key set and deleted between two commits journals nothing; one that existed before journals its delete", async () => {
    const store = await openJournaledStore(path);
    store.set("threats", "kept", mapped(1));
    await store.commit();
    const journal = `${path}.journal.0`;
    const before = await readFile(journal, "utf8");
    store.set("threats", "passing", mapped(2));
    store.delete("threats", "passing");
    await store.commit();
    expect(await readFile(journal, "utf8")).toBe(before);
    store.set("threats", "kept", mapped(3));
    store.delete("threats", "kept");
    await store.commit();
    expect((await readFile(journal, "utf8")).length).toBeGreaterThan(before.length);
    await store.close();
    const again = await openJournaledStore(path);
    expect(again.size("threats")).toBe(0);
    await again.close();
  });

  it("changes not yet committed are readable but not durable", async () => {
    const store = await openJournaledStore(path);
    store.set("assets", "a1", { name: "db" });
    expect(store.get("assets", "a1")).toEqual({ name: "db" });
    await store.close();
    const again = await openJournaledStore(path);
    expect(again.get("assets", "a1")).toBeUndefined();
    await again.close();
  });

  it("compaction writes the snapshot, deletes the old journal, and commits go on while it serializes", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let paused = false;
    const pause = (): Promise<void> => {
      paused = true;
      return gate;
    };
    const store = await openJournaledStore(path, { pause });
    for (let i = 0; i < 5_000; i++) store.set("threats", `t${i}`, mapped(i));
    await store.commit();
    const compaction = store.compact();
    // The compaction is held inside its serialization (pause): a commit still goes through.
    await new Promise((resolve) => setImmediate(resolve));
    expect(paused).toBe(true);
    store.set("intents", "i1", { kind: "create", threatId: "t1" });
    await store.commit();
    release();
    await compaction;
    const names = await readdir(dir);
    expect(names).not.toContain("state.json.journal.0");
    expect(names).toContain("state.json.journal.1");
    expect(store.stats()).toMatchObject({ gen: 1, compactions: 1 });
    await store.close();
    const again = await openJournaledStore(path);
    expect(again.size("threats")).toBe(5_000);
    expect(again.get("threats", "t4321")).toEqual(mapped(4321));
    expect(again.get("intents", "i1")).toEqual({ kind: "create", threatId: "t1" });
    await again.close();
  });

  it("a compaction runs by itself once the journal outgrows its threshold", async () => {
    const store = await openJournaledStore(path, { compaction: { minJournalBytes: 2_000, ratio: 0.5 } });
    for (let i = 0; i < 40; i++) {
      store.set("threats", `t${i % 10}`, mapped(i));
      await store.commit();
    }
    await store.close();
    expect(store.stats().compactions).toBeGreaterThan(0);
    const again = await openJournaledStore(path);
    for (let i = 30; i < 40; i++) expect(again.get("threats", `t${i % 10}`)).toEqual(mapped(i));
    await again.close();
  });

  it("a buffered, uncommitted change is not in a compaction's snapshot", async () => {
    const fs = new MemFs();
    const store = await openJournaledStore("/s/state.json", { fs });
    store.set("threats", "t1", mapped(1));
    await store.commit();
    store.set("threats", "t1", mapped(2));
    store.set("threats", "t2", mapped(3));
    store.setMeta("cursor", "uncommitted");
    await store.compact();
    const recovered = await openJournaledStore("/s/state.json", { fs: fs.crashImage(() => 0) });
    expect(recovered.get("threats", "t1")).toEqual(mapped(1));
    expect(recovered.get("threats", "t2")).toBeUndefined();
    expect(recovered.getMeta("cursor")).toBeUndefined();
  });

  it("a torn last journal line is ignored and cut off; the next commit is recovered after it", async () => {
    const store = await openJournaledStore(path);
    store.setMeta("cursor", "c1");
    await store.commit();
    await store.close();
    await appendFile(`${path}.journal.0`, '1234abcd {"s":2,"c":[["s","threats","t1"');
    const again = await openJournaledStore(path);
    expect(again.getMeta("cursor")).toBe("c1");
    expect(again.get("threats", "t1")).toBeUndefined();
    again.setMeta("cursor", "c2");
    await again.commit();
    await again.close();
    const third = await openJournaledStore(path);
    expect(third.getMeta("cursor")).toBe("c2");
    await third.close();
  });

  it("a damaged line before the journal's end is corruption: state_corrupt, files left as they are", async () => {
    const store = await openJournaledStore(path);
    for (const c of ["c1", "c2"]) {
      store.setMeta("cursor", c);
      await store.commit();
    }
    await store.close();
    const journal = `${path}.journal.0`;
    const damaged = (await readFile(journal, "utf8")).replace('"c1"', '"cX"');
    await writeFile(journal, damaged);
    await expectCode(openJournaledStore(path), "state_corrupt");
    expect(await readFile(journal, "utf8")).toBe(damaged);
  });

  it("a snapshot whose threat row is malformed is state_corrupt, and is left as it is", async () => {
    const store = await openJournaledStore(path);
    store.set("threats", "t1", mapped(1));
    await store.commit();
    await store.compact();
    await store.close();
    const damaged = (await readFile(path, "utf8")).replace('"ids":["t1"]', '"ids":["t1","t2"]');
    expect(damaged).not.toBe(await readFile(path, "utf8"));
    await writeFile(path, damaged);
    await expectCode(openJournaledStore(path), "state_corrupt");
    expect(await readFile(path, "utf8")).toBe(damaged);
  });

  it("read-only open (status beside a running writer): sees what is committed, changes no file, refuses commits", async () => {
    const writer = await openJournaledStore(path);
    writer.set("threats", "t1", mapped(1));
    await writer.commit();
    await writer.compact();
    writer.setMeta("cursor", "c1");
    await writer.commit();
    const journal = `${path}.journal.1`;
    await appendFile(journal, "0000 torn");
    const before = { snapshot: await readFile(path, "utf8"), journal: await readFile(journal, "utf8") };
    const reader = await openJournaledStore(path, { readOnly: true });
    expect(reader.get("threats", "t1")).toEqual(mapped(1));
    expect(reader.getMeta("cursor")).toBe("c1");
    reader.setMeta("cursor", "c2");
    await expectCode(reader.commit(), "state_write_failed");
    await expectCode(reader.compact(), "state_write_failed");
    expect(await readFile(path, "utf8")).toBe(before.snapshot);
    expect(await readFile(journal, "utf8")).toBe(before.journal);
    await writer.close();
  });

  it("read-only open racing a compaction of the writer reads again and sees the newest state", async () => {
    const mem = new MemFs();
    const writer = await openJournaledStore("/s/state.json", { fs: mem });
    for (const c of ["c1", "c2", "c3"]) {
      writer.setMeta("cursor", c);
      await writer.commit();
    }
    let raced = false;
    // The writer compacts (and commits again) just as the reader is about to read journal 0:
    // the snapshot the reader has is the old one, and journal 0 is gone.
    const racing: StoreFs = {
      readText: async (p) => {
        if (p.endsWith(".journal.0") && !raced) {
          raced = true;
          await writer.compact();
          writer.setMeta("cursor", "c4");
          await writer.commit();
        }
        return mem.readText(p);
      },
      list: (d) => mem.list(d),
      open: (p, mode) => mem.open(p, mode),
      rename: (from, to) => mem.rename(from, to),
      remove: (p) => mem.remove(p),
      truncate: (p, bytes) => mem.truncate(p, bytes),
      ensureDir: (d) => mem.ensureDir(d),
      syncDir: (d) => mem.syncDir(d),
    };
    const reader = await openJournaledStore("/s/state.json", { fs: racing, readOnly: true });
    expect(raced).toBe(true);
    expect(reader.getMeta("cursor")).toBe("c4");
    await writer.close();
  });

  it("read-only open of a version-1 state file reads it converted, and leaves it as it is", async () => {
    const v1 = JSON.stringify({ ...emptyState(), seq: 4 });
    await writeFile(path, v1);
    const reader = await openJournaledStore(path, { readOnly: true });
    expect(reader.getMeta("seq")).toBe(4);
    expect(await readFile(path, "utf8")).toBe(v1);
    expect(await readdir(dir)).toEqual(["state.json"]);
  });

  it("a snapshot from a newer threatbridge is refused with state_too_new", async () => {
    await writeFile(path, JSON.stringify({ format: "threatbridge-store", version: 99, gen: 1 }));
    await expectCode(openJournaledStore(path), "state_too_new");
  });

  it("after a failed append the store refuses commits (state_write_failed); a reopen has the last durable commit", async () => {
    let full = false;
    const fs: StoreFs = {
      ...nodeStoreFs,
      async open(p, mode) {
        const file = await nodeStoreFs.open(p, mode);
        return {
          ...file,
          write: (text) =>
            full
              ? Promise.reject(Object.assign(new Error("no space left"), { code: "ENOSPC" }))
              : file.write(text),
        };
      },
    };
    const store = await openJournaledStore(path, { fs });
    store.setMeta("cursor", "c1");
    await store.commit();
    full = true;
    store.setMeta("cursor", "c2");
    await expectCode(store.commit(), "state_write_failed");
    full = false;
    store.setMeta("cursor", "c3");
    await expectCode(store.commit(), "state_write_failed");
    await store.close();
    const again = await openJournaledStore(path);
    expect(again.getMeta("cursor")).toBe("c1");
    await again.close();
  });
});
