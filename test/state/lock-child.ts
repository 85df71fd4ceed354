import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import ts from "typescript";

/** The lock module and what it imports at run time, relative to the repository root. */
const LOCK_SOURCES = [
  "src/state/lock.ts",
  "src/state/lock-judge.ts",
  "src/state/errors.ts",
  "src/state/atomic-write.ts",
  "src/shared/clock.ts",
];

/**
 * A child process runs the real lock module, not a look-alike: the sources are transpiled (types
 * stripped, no type check) into `outDir`, next to a link to the repository's node_modules, and a
 * small driver takes commands on stdin: `acquire` answers `won` or `lost <code>`, `release`
 * answers `released`.
 */
export async function buildLockDriver(outDir: string): Promise<string> {
  const root = resolve(import.meta.dirname, "../..");
  for (const file of LOCK_SOURCES) {
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
  const driver = join(outDir, "driver.mjs");
  await writeFile(
    driver,
    `import { createInterface } from "node:readline";
import { acquireLock } from "./src/state/lock.js";
const statePath = process.argv[2];
let lock = null;
for await (const line of createInterface({ input: process.stdin })) {
  if (line === "acquire") {
    try {
      lock = await acquireLock(statePath);
      process.stdout.write("won\\n");
    } catch (err) {
      process.stdout.write("lost " + (err && err.code) + "\\n");
    }
  } else if (line === "release") {
    await lock?.release();
    lock = null;
    process.stdout.write("released\\n");
  }
}
`,
  );
  return driver;
}

export interface LockChild {
  process: ChildProcess;
  /** Sends one command and resolves with the child's answer line. */
  send(command: "acquire" | "release"): Promise<string>;
}

export function startLockChild(driver: string, statePath: string): LockChild {
  const child = spawn(process.execPath, [driver, statePath], { stdio: ["pipe", "pipe", "inherit"] });
  if (child.stdout === null || child.stdin === null) throw new Error("lock child has no pipes");
  const stdin = child.stdin;
  const lines = createInterface({ input: child.stdout });
  const waiting: ((line: string) => void)[] = [];
  lines.on("line", (line) => waiting.shift()?.(line));
  return {
    process: child,
    send(command) {
      return new Promise((resolveLine, reject) => {
        const onExit = (): void => reject(new Error(`lock child exited before answering ${command}`));
        child.once("exit", onExit);
        waiting.push((line) => {
          child.removeListener("exit", onExit);
          resolveLine(line);
        });
        stdin.write(`${command}\n`);
      });
    },
  };
}
