/** Helpers for the deployment material's tests: YAML documents, and the built CLI's `config validate`. */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { parseAllDocuments } from "yaml";
import { isRecord } from "../../src/shared/json.js";

export const ROOT = resolve(import.meta.dirname, "../..");

/** Every YAML document of a file, parsed (YAML errors fail the test with their message). */
export async function yamlDocuments(path: string): Promise<unknown[]> {
  const docs = parseAllDocuments(await readFile(path, "utf8"));
  return docs.map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors.map((e) => e.message).join("; ")}`);
    return doc.toJS();
  });
}

/** The value at a dotted path of parsed YAML, or undefined. */
export function at(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split(".")) {
    if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)];
    else if (isRecord(current)) current = current[key];
    else return undefined;
  }
  return current;
}

export function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

export function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

/** `X_file: /path` lines of a config: where the deployment must put each secret file. */
export function secretFilePaths(configText: string): string[] {
  return [...configText.matchAll(/^[ \t]*(\w+)_file:\s*(\S+)/gm)].map((m) => m[2] ?? "");
}

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "dist", "cli.js"), ...args], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.once("error", reject);
    child.once("exit", (code) => resolvePromise({ code, out }));
  });
}

/**
 * `threatbridge config validate` (the built CLI) on a deployment's config, with its secret files
 * present: each `X_file` path is redirected to a file in a temporary directory, so that the
 * contract's `_file` form itself is what is validated.
 */
export async function validateWithCli(
  configText: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string }> {
  if (!existsSync(join(ROOT, "dist", "cli.js"))) {
    throw new Error("dist/cli.js is missing: run `npm run build` first (npm test does)");
  }
  const baseEnv = { PATH: process.env["PATH"] ?? "", ...env };
  const dir = await mkdtemp(join(tmpdir(), "threatbridge-deploy-"));
  try {
    let text = configText;
    for (const match of configText.matchAll(/^([ \t]*)(\w+)_file:\s*(\S+)(.*)$/gm)) {
      const [line = "", indent = "", key = "", path = ""] = match;
      const file = join(dir, basename(path));
      await writeFile(file, `secret-from-${basename(path)}\n`, { mode: 0o600 });
      text = text.replace(line, `${indent}${key}_file: ${file}`);
    }
    const configPath = join(dir, "threatbridge.yaml");
    await writeFile(configPath, text);
    return await runCli(["config", "validate", "-c", configPath], baseEnv);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
