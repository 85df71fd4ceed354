import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { isRecord } from "../../src/shared/index.js";

/**
 * The GitHub workflows are checked here, since GitHub only finds a mistake in them when a push or
 * a tag runs them: every file passes action-validator (the workflow schema), CI runs what .ci/run
 * runs, and a release tag builds the image with an SBOM and provenance and attaches the tarball.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const WORKFLOWS = join(ROOT, ".github", "workflows");
const VALIDATOR = join(ROOT, "node_modules", "@action-validator", "cli", "cli.mjs");

function validate(file: string): { code: number | null; out: string } {
  const run = spawnSync(process.execPath, [VALIDATOR, file], { encoding: "utf8", timeout: 30_000 });
  return { code: run.status, out: `${run.stdout}${run.stderr}` };
}

async function workflowFiles(): Promise<string[]> {
  return (await readdir(WORKFLOWS)).filter((f) => /\.ya?ml$/.test(f)).map((f) => join(WORKFLOWS, f));
}

async function workflow(name: string): Promise<Record<string, unknown>> {
  const doc: unknown = parse(await readFile(join(WORKFLOWS, name), "utf8"));
  if (!isRecord(doc)) throw new Error(`${name} is not a mapping`);
  return doc;
}

/** Every step of every job, as plain records. */
function steps(doc: Record<string, unknown>): Array<Record<string, unknown>> {
  const jobs = isRecord(doc["jobs"]) ? Object.values(doc["jobs"]) : [];
  return jobs
    .flatMap((job) => (isRecord(job) && Array.isArray(job["steps"]) ? job["steps"] : []))
    .filter(isRecord);
}

describe("GitHub workflows", () => {
  it("every workflow file passes action-validator", async () => {
    const files = await workflowFiles();
    expect(files.map((f) => f.slice(WORKFLOWS.length + 1)).sort()).toEqual(["ci.yml", "release.yml"]);
    for (const file of files) {
      const { code, out } = validate(file);
      expect(code, `${file}:\n${out}`).toBe(0);
    }
  });

  it("the validator does fail a broken workflow (a job without runs-on, steps not a list)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "threatbridge-workflow-"));
    try {
      const broken = join(dir, "broken.yml");
      await writeFile(broken, "name: x\non: push\njobs:\n  a:\n    runs-onn: ubuntu-24.04\n    steps: 3\n");
      const { code, out } = validate(broken);
      expect(code).not.toBe(0);
      expect(out).toContain("runs-onn");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("ci.yml runs .ci/run, the one definition of CI's steps", async () => {
    const runs = steps(await workflow("ci.yml")).map((s) => String(s["run"] ?? ""));
    expect(runs.some((r) => /\bbash \.ci\/run\b/.test(r))).toBe(true);
  });

  it("release.yml: on a v* tag, pushes the image to ghcr.io with an SBOM and max provenance, and attaches the npm pack tarball", async () => {
    const doc = await workflow("release.yml");
    expect(doc["on"]).toEqual({ push: { tags: ["v*"] } });
    const all = steps(doc);
    const build = all.find((s) => String(s["uses"] ?? "").startsWith("docker/build-push-action@"));
    const withs = isRecord(build?.["with"]) ? build["with"] : {};
    expect(withs["push"]).toBe(true);
    expect(withs["sbom"]).toBe(true);
    expect(withs["provenance"]).toBe("mode=max");
    expect(String(withs["build-args"])).toMatch(/^VERSION=/m);
    expect(String(withs["build-args"])).toMatch(/^REVISION=\$\{\{ github\.sha \}\}$/m);
    const meta = all.find((s) => String(s["uses"] ?? "").startsWith("docker/metadata-action@"));
    expect(JSON.stringify(meta?.["with"])).toContain("ghcr.io/${{ github.repository }}");
    const runs = all.map((s) => String(s["run"] ?? "")).join("\n");
    expect(runs).toContain("npm pack");
    expect(runs).toMatch(/gh release (create|upload) "\$GITHUB_REF_NAME" "\$TARBALL"/);
  });
});

describe(".ci/run", () => {
  it("installs and runs the packed tarball on each supported major, and validates the workflows", async () => {
    const script = await readFile(join(ROOT, ".ci", "run"), "utf8");
    const majors = /SUPPORTED_MAJORS=\(([^)]*)\)/.exec(script)?.[1]?.trim().split(/\s+/) ?? [];
    expect(majors).toEqual(["22", "24"]);
    // Inside the loop over SUPPORTED_MAJORS: once per major.
    const loop = /for major in "\$\{SUPPORTED_MAJORS\[@\]\}"; do([\s\S]*?)\ndone/.exec(script)?.[1] ?? "";
    expect(loop).toMatch(/scripts\/tarball-smoke\.sh "\$major"/);
    expect(script).toMatch(/action-validator/);
  });
});
