import { chmod, mkdir, readFile, readdir, rmdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  STATE_VERSION,
  StateError,
  emptyState,
  openStateStore,
  readStateFile,
  type ThreatRecord,
} from "../../src/state/index.js";
import { withTempDir } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await withTempDir());
});
afterEach(async () => {
  await cleanup();
});

function threat(status: string): ThreatRecord {
  return {
    status,
    severity: 3,
    assetId: "a1",
    updatedAt: "2026-01-01T00:00:00Z",
    gone: false,
  };
}

async function expectStateError(promise: Promise<unknown>, code: string): Promise<StateError> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StateError);
  if (!(err instanceof StateError)) throw new Error("unreachable");
  expect(err.code).toBe(code);
  return err;
}

describe("openStateStore", () => {
  it("an absent file gives the empty state and creates nothing until the first write", async () => {
    const path = join(dir, "data", "state.json");
    const store = await openStateStore(path);
    expect(store.data).toEqual(emptyState());
    expect(store.path).toBe(path);
    expect(await readdir(dir)).toEqual([]);
  });

  it("write creates the parent directory (0700) and a 0600 file whose content reads back", async () => {
    const path = join(dir, "nested", "data", "state.json");
    const store = await openStateStore(path);
    store.data.threats["t1"] = threat("unsolved");
    store.data.cursors.threats = "cursor-9";
    await store.write();

    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, "nested", "data"))).mode & 0o777).toBe(0o700);
    const reopened = await openStateStore(path);
    expect(reopened.data).toEqual(store.data);
    expect(await readStateFile(path)).toEqual(store.data);
    // Only the state file: the temp file was renamed, not left behind.
    expect(await readdir(join(dir, "nested", "data"))).toEqual(["state.json"]);
  });

  it("a file that had other modes ends up 0600 after a write", async () => {
    const path = join(dir, "state.json");
    await writeFile(path, JSON.stringify(emptyState()));
    await chmod(path, 0o644);
    const store = await openStateStore(path);
    await store.write();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it("a crash between temp write and rename leaves the old file intact, and the leftover temp file is ignored", async () => {
    const path = join(dir, "state.json");
    const first = await openStateStore(path);
    first.data.seq = 7;
    await first.write();
    const before = await readFile(path);
    // What a crash leaves: a half-written temp file next to the intact state file.
    const leftover = `${path}.4242.deadbeef0000.tmp`;
    await writeFile(leftover, '{"version":1,"seq":99,"curs');

    const reopened = await openStateStore(path);
    expect(reopened.data.seq).toBe(7);
    expect(await readFile(path)).toEqual(before);
    reopened.data.seq = 8;
    await reopened.write();
    expect((await readStateFile(path))?.seq).toBe(8);
  });

  it("an unparseable file gives state_corrupt naming the file, and the file is left untouched", async () => {
    const path = join(dir, "state.json");
    await writeFile(path, '{"version":1, "cursors": ');
    const err = await expectStateError(openStateStore(path), "state_corrupt");
    expect(err.message).toContain(path);
    expect(err.message).toContain("left untouched");
    expect(await readFile(path, "utf8")).toBe('{"version":1, "cursors": ');
    expect(await readdir(dir)).toEqual(["state.json"]);
  });

  it("a file that fails the schema gives state_corrupt naming the field, file untouched", async () => {
    const path = join(dir, "state.json");
    const bad = { ...emptyState(), threats: { t1: { ...threat("unsolved"), severity: "high" } } };
    const text = JSON.stringify(bad);
    await writeFile(path, text);
    const err = await expectStateError(openStateStore(path), "state_corrupt");
    expect(err.message).toContain(path);
    expect(err.message).toContain("threats.t1.severity");
    expect(await readFile(path, "utf8")).toBe(text);
  });

  it("a file from a newer threatbridge gives state_too_new telling to upgrade, file untouched", async () => {
    const path = join(dir, "state.json");
    const text = JSON.stringify({ ...emptyState(), version: STATE_VERSION + 1, somethingNew: true });
    await writeFile(path, text);
    const err = await expectStateError(openStateStore(path), "state_too_new");
    expect(err.message).toContain(path);
    expect(err.message).toMatch(/upgrade threatbridge/);
    expect(await readFile(path, "utf8")).toBe(text);
  });

  it("concurrent writes are serialized and the last data wins", async () => {
    const path = join(dir, "state.json");
    const store = await openStateStore(path);
    const writes: Promise<void>[] = [];
    for (let i = 1; i <= 20; i++) {
      store.data.seq = i;
      store.data.threats[`t${i}`] = threat("unsolved");
      writes.push(store.write());
    }
    await Promise.all(writes);
    const saved = await readStateFile(path);
    expect(saved?.seq).toBe(20);
    expect(Object.keys(saved?.threats ?? {})).toHaveLength(20);
    // A write called after the others finished saves newer data again.
    store.data.seq = 21;
    await store.write();
    expect((await readStateFile(path))?.seq).toBe(21);
    expect(await readdir(dir)).toEqual(["state.json"]);
  });

  it("a failed write rejects with state_write_failed and does not block later writes", async () => {
    const path = join(dir, "state.json");
    const store = await openStateStore(path);
    // A directory where the file should be: the rename over it fails.
    await mkdir(path);
    const err = await expectStateError(store.write(), "state_write_failed");
    expect(err.message).toContain(path);
    await rmdir(path);
    store.data.seq = 5;
    await store.write();
    expect((await readStateFile(path))?.seq).toBe(5);
    expect(await readdir(dir)).toEqual(["state.json"]);
  });

  it("a path that cannot be read gives state_unreadable, not an empty state", async () => {
    const path = join(dir, "state.json");
    await mkdir(path);
    await expectStateError(openStateStore(path), "state_unreadable");
  });
});

describe("readStateFile", () => {
  it("is null for an absent file and creates nothing", async () => {
    expect(await readStateFile(join(dir, "missing", "state.json"))).toBeNull();
    expect(await readdir(dir)).toEqual([]);
  });

  it("reads without changing the file (dry-run leaves it byte-for-byte)", async () => {
    const path = join(dir, "state.json");
    const store = await openStateStore(path);
    store.data.threats["t1"] = threat("solved");
    await store.write();
    const before = await readFile(path);
    const mtime = (await stat(path)).mtimeMs;
    expect((await readStateFile(path))?.threats["t1"]?.status).toBe("solved");
    expect(await readFile(path)).toEqual(before);
    expect((await stat(path)).mtimeMs).toBe(mtime);
  });

  it("reports a corrupt file as state_corrupt", async () => {
    const path = join(dir, "state.json");
    await writeFile(path, "[]");
    await expectStateError(readStateFile(path), "state_corrupt");
  });
});
