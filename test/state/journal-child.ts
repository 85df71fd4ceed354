import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import ts from "typescript";

/** The journaled store and what it imports at run time, relative to the repository root. */
const STORE_SOURCES = [
  "src/state/journaled-open.ts",
  "src/state/journaled-store.ts",
  "src/state/journal-line.ts",
  "src/state/journal-recovery.ts",
  "src/state/journaled-migrate.ts",
  "src/state/snapshot-adapter.ts",
  "src/state/snapshot-codec.ts",
  "src/state/snapshot-threat-codec.ts",
  "src/state/store-fs.ts",
  "src/state/atomic-write.ts",
  "src/state/errors.ts",
  "src/state/state-file.ts",
  "src/state/rows.ts",
  "src/state/threat-table.ts",
  "src/state/interner.ts",
  "src/state/workflow-columns.ts",
  "src/state/slice-columns.ts",
  "src/state/threat-compact.ts",
  "src/state/slice-pack.ts",
  "src/state/slice-tags.ts",
  "src/state/packed-rows.ts",
  "src/state/column-pack.ts",
  "src/state/iso-ms.ts",
  "src/state/migrations.ts",
  "src/state/schema.ts",
  "src/shared/json.ts",
  "src/shared/every-key.ts",
];

/** Bulk threats written by the first run, so that a compaction has real work to do. */
export const BULK = 20_000;

/** What commit `n` of the writer sets: five threats chosen from `n`, and meta `n`. */
export function keysOf(n: number): string[] {
  return [0, 1, 2, 3, 4].map((j) => `t${(n * 7 + j) % 3_000}`);
}

/**
 * A child process runs the real store (transpiled like lock-child.ts): it opens the store, writes
 * BULK threats on its first run, then commits forever, printing `ok <n>` after commit n resolved
 * and `phase <p>` at each compaction phase; the parent SIGKILLs it at some point.
 */
export async function buildStoreWriter(outDir: string): Promise<string> {
  const root = resolve(import.meta.dirname, "../..");
  for (const file of STORE_SOURCES) {
    const source = await readFile(join(root, file), "utf8");
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: file,
    });
    const target = join(outDir, file.replace(/\.ts$/, ".js"));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, outputText);
  }
  await writeFile(join(outDir, "package.json"), '{ "type": "module" }\n');
  await symlink(join(root, "node_modules"), join(outDir, "node_modules"), "dir");
  const driver = join(outDir, "writer.mjs");
  await writeFile(
    driver,
    `import { openJournaledStore } from "./src/state/journaled-open.js";
const statePath = process.argv[2];
const say = (line) => process.stdout.write(line + "\\n");
const store = await openJournaledStore(statePath, {
  compaction: { minJournalBytes: 32 * 1024, ratio: 0.01 },
  onCompaction: (phase) => say("phase " + phase),
  // A named fault point widened: each pause between serialized chunks sleeps, so that a kill sent
  // on "phase start" lands while the snapshot is being serialized.
  pause: () => new Promise((resolve) => setTimeout(resolve, 20)),
});
const keysOf = ${keysOf.toString()};
let n = store.getMeta("n");
if (n === undefined) {
  for (let i = 0; i < ${BULK}; i++)
    store.set("threats", "b" + i, { status: "open", severity: i % 5, assetId: "a" + (i % 40), issue: { repo: "acme/sec", number: i + 1, url: "https://github.com/acme/sec/issues/" + (i + 1), state: "open", hash: "h" + i }, link: "acme/sec#" + (i + 1) });
  n = 0;
  store.setMeta("n", 0);
  await store.commit();
}
say("ready " + n);
for (let round = 0; round < 100000; round++) {
  n += 1;
  for (const key of keysOf(n)) store.set("threats", key, { status: "open", severity: 3, assetId: null, n });
  store.setMeta("n", n);
  const m = n;
  // Commits overlap: the next is buffered while this one is in flight.
  store.commit().then(() => say("ok " + m));
  if (round % 4 === 3) await store.commit();
}
`,
  );
  return driver;
}

export interface StoreWriter {
  process: ChildProcess;
  /** The highest n whose commit the child reported resolved. */
  resolved(): number;
  /** The last compaction phase the child reported (null: none yet). */
  phase(): string | null;
  /** Resolves at the first line matching `predicate` (rejects if the child exits first). */
  waitFor(predicate: (line: string) => boolean): Promise<string>;
  /** SIGKILLs the child and resolves when it is gone. */
  kill(): Promise<void>;
}

export function startStoreWriter(driver: string, statePath: string): StoreWriter {
  const child = spawn(process.execPath, [driver, statePath], { stdio: ["ignore", "pipe", "inherit"] });
  if (child.stdout === null) throw new Error("store writer has no stdout");
  const lines = createInterface({ input: child.stdout });
  let resolved = -1;
  let phase: string | null = null;
  const waiters: { predicate: (line: string) => boolean; done: (line: string) => void }[] = [];
  lines.on("line", (line) => {
    if (line.startsWith("ok ")) resolved = Math.max(resolved, Number(line.slice(3)));
    if (line.startsWith("phase ")) phase = line.slice(6);
    for (const waiter of [...waiters]) {
      if (!waiter.predicate(line)) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.done(line);
    }
  });
  const exited = new Promise<void>((resolveExit) => child.once("exit", () => resolveExit()));
  // Every line the child wrote before it died has been read once its stdout closed.
  const drained = new Promise<void>((resolveClose) => lines.once("close", () => resolveClose()));
  return {
    process: child,
    resolved: () => resolved,
    phase: () => phase,
    waitFor(predicate) {
      return new Promise((resolveLine, reject) => {
        const timer = setTimeout(() => reject(new Error("store writer: no matching line in 30 s")), 30_000);
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error("store writer exited before the expected line"));
        });
        waiters.push({
          predicate,
          done: (line) => {
            clearTimeout(timer);
            resolveLine(line);
          },
        });
      });
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
      await drained;
    },
  };
}
