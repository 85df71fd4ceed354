import { spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { assertBuilt, CLI } from "../e2e/world.js";

/**
 * `threatbridge init [--dir D]`: the shipped example config lands at D/config/threatbridge.yaml,
 * the path every other command reads when no -c and no $THREATBRIDGE_CONFIG is given; an existing
 * file is never overwritten. Run as a user runs it: the built CLI in a child, from a directory.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const SHIPPED = join(ROOT, "config", "threatbridge.yaml");
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "threatbridge-init-"));
  dirs.push(dir);
  return dir;
}

function run(
  cli: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd,
      env: { PATH: process.env["PATH"] ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`threatbridge ${args.join(" ")} did not finish: ${stderr}`));
    }, 30_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

const SECRETS = {
  PLATFORM_CLIENT_ID: "threatbridge",
  PLATFORM_CLIENT_SECRET: "threatbridge-secret",
  GITHUB_TOKEN: "ghp_standin",
};

describe("threatbridge init", () => {
  it("writes the example config to ./config/threatbridge.yaml, which config validate then finds without -c", async () => {
    assertBuilt();
    const dir = await tempDir();
    const init = await run(CLI, ["init"], dir);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain("wrote config/threatbridge.yaml");
    expect(await readFile(join(dir, "config", "threatbridge.yaml"), "utf8")).toBe(
      await readFile(SHIPPED, "utf8"),
    );
    // The schema its first line names, for an editor's completion.
    const schema = JSON.parse(await readFile(join(dir, "config", "threatbridge.schema.json"), "utf8")) as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(schema.properties)).toContain("platform");
    const validate = await run(CLI, ["config", "validate"], dir, SECRETS);
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toBe("config/threatbridge.yaml: valid\n");
  });

  it("refuses to overwrite an existing config: exit 2, names the file, the file stays as it was", async () => {
    assertBuilt();
    const dir = await tempDir();
    await mkdir(join(dir, "config"));
    await writeFile(join(dir, "config", "threatbridge.yaml"), "# mine\n");
    const init = await run(CLI, ["init"], dir);
    expect(init.code).toBe(2);
    expect(init.stderr).toContain("config/threatbridge.yaml already exists; init never overwrites");
    expect(init.stdout).toBe("");
    expect(await readFile(join(dir, "config", "threatbridge.yaml"), "utf8")).toBe("# mine\n");
  });

  it("--dir D writes D/config/threatbridge.yaml (D made when missing) and says where", async () => {
    assertBuilt();
    const dir = await tempDir();
    const init = await run(CLI, ["init", "--dir", "deploy/here"], dir);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain("wrote deploy/here/config/threatbridge.yaml");
    expect(init.stdout).toContain("Commands run from deploy/here read it without -c");
    expect(await readFile(join(dir, "deploy/here/config/threatbridge.yaml"), "utf8")).toBe(
      await readFile(SHIPPED, "utf8"),
    );
  });

  it("names $THREATBRIDGE_CONFIG when it is set, since the commands then read that file instead", async () => {
    assertBuilt();
    const dir = await tempDir();
    const init = await run(CLI, ["init"], dir, { THREATBRIDGE_CONFIG: "/etc/threatbridge.yaml" });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain("$THREATBRIDGE_CONFIG is set (/etc/threatbridge.yaml)");
  });

  it("works from an installed package: what package.json ships (dist/, config/), no checkout around it", async () => {
    assertBuilt();
    const pkg = join(await tempDir(), "node_modules", "threatbridge");
    await mkdir(pkg, { recursive: true });
    await cp(join(ROOT, "dist"), join(pkg, "dist"), { recursive: true });
    await cp(join(ROOT, "config"), join(pkg, "config"), { recursive: true });
    await cp(join(ROOT, "package.json"), join(pkg, "package.json"));
    const where = await tempDir();
    const init = await run(join(pkg, "dist", "cli.js"), ["init"], where);
    expect(init.code, init.stderr).toBe(0);
    expect(await readFile(join(where, "config", "threatbridge.yaml"), "utf8")).toBe(
      await readFile(SHIPPED, "utf8"),
    );
  });
});
