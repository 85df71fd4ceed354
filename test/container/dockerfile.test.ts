import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { execForm, instructions, parseDockerfile, type Stage } from "./dockerfile-parse.js";

/**
 * The image is built and run by scripts/container-smoke.sh (podman; run by .ci/run), which needs
 * root and minutes. These fast checks hold the Dockerfile to what matters, and prove that a
 * production-only install (what the runtime stage does) runs the CLI.
 */

const ROOT = resolve(import.meta.dirname, "../..");

async function dockerfile(): Promise<{ stages: Stage[]; final: Stage }> {
  const { stages } = parseDockerfile(await readFile(join(ROOT, "Dockerfile"), "utf8"));
  const final = stages.at(-1);
  if (!final) throw new Error("the Dockerfile has no FROM");
  return { stages, final };
}

function run(
  cmd: string,
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.once("error", reject);
    child.once("exit", (code) => resolvePromise({ code, out }));
  });
}

describe("Dockerfile", () => {
  it("is multi-stage on a Node 24 slim base pinned by major, never `latest`", async () => {
    const { stages } = await dockerfile();
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage.from).toMatch(/^node:24-[a-z]+-slim$/);
  });

  it("runs as the non-root node user, with NODE_ENV=production and the state on a volume", async () => {
    const { final } = await dockerfile();
    const users = instructions(final, "USER").map((i) => i.args.trim());
    expect(users.at(-1)).toBe("node");
    expect(instructions(final, "ENV").map((i) => i.args)).toContain("NODE_ENV=production");
    expect(instructions(final, "WORKDIR").at(-1)?.args).toBe("/app");
    expect(instructions(final, "VOLUME").map((i) => i.args.trim())).toContain("/app/data");
    expect(instructions(final, "EXPOSE").map((i) => i.args.trim())).toContain("9464");
  });

  it("fetches nothing with ADD: every file comes from the build context or the build stage", async () => {
    const { stages } = await dockerfile();
    for (const stage of stages) {
      for (const add of instructions(stage, "ADD"))
        expect(add.args, `line ${add.line}`).not.toMatch(/https?:\/\/|git@/);
    }
  });

  it("installs production dependencies only in the final stage and copies dist and config", async () => {
    const { stages, final } = await dockerfile();
    const build = stages[0];
    expect(build && instructions(build, "RUN").some((i) => /\bnpm ci\b/.test(i.args))).toBe(true);
    expect(build && instructions(build, "RUN").some((i) => /\bnpm run build\b/.test(i.args))).toBe(true);
    expect(instructions(final, "RUN").some((i) => /\bnpm ci\b[^&]*--omit=dev/.test(i.args))).toBe(true);
    const copies = instructions(final, "COPY").map((i) => i.args);
    expect(copies).toContainEqual(expect.stringMatching(/^--from=\S+ \/app\/dist \.\/dist$/));
    expect(copies).toContain("config ./config");
  });

  it("starts the CLI in exec form (signals reach node): ENTRYPOINT node dist/cli.js, CMD run", async () => {
    const { final } = await dockerfile();
    expect(execForm(instructions(final, "ENTRYPOINT").at(-1)?.args ?? "")).toEqual([
      "node",
      "/app/dist/cli.js",
    ]);
    expect(execForm(instructions(final, "CMD").at(-1)?.args ?? "")).toEqual(["run"]);
  });

  it("has a HEALTHCHECK that asks /healthz with node (no curl in slim images) and fails when unhealthy", async () => {
    const { final } = await dockerfile();
    const check = instructions(final, "HEALTHCHECK").at(-1)?.args ?? "";
    const cmd = execForm(check.replace(/^(--\S+\s+)*CMD\s+/, ""));
    expect(cmd?.slice(0, 2)).toEqual(["node", "-e"]);
    const script = cmd?.[2] ?? "";
    expect(script).toContain("/healthz");
    let status = 200;
    const server = createServer((req, res) => {
      res.writeHead(req.url === "/healthz" ? status : 404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? String(address.port) : "";
      const env = { ...process.env, THREATBRIDGE_HEALTH_PORT: port };
      expect((await run(process.execPath, ["-e", script], { cwd: ROOT, env })).code).toBe(0);
      status = 503;
      expect((await run(process.execPath, ["-e", script], { cwd: ROOT, env })).code).toBe(1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("carries the OCI labels (source, version, revision, licenses) from build args, and the revision for /metrics", async () => {
    const text = await readFile(join(ROOT, "Dockerfile"), "utf8");
    const { args } = parseDockerfile(text);
    const { final } = await dockerfile();
    const pkg: unknown = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8"));
    const version = typeof pkg === "object" && pkg !== null && "version" in pkg ? String(pkg.version) : "";
    // A local build without --build-arg says package.json's version, never a stale one.
    expect(args["VERSION"]).toBe(version);
    expect(args["REVISION"]).toBe("unknown");
    expect(args["SOURCE"]).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
    // Global ARGs reach a stage only when it declares them again.
    const declared = instructions(final, "ARG").map((i) => i.args.trim());
    expect(declared).toEqual(expect.arrayContaining(["VERSION", "REVISION", "SOURCE"]));
    const labels = instructions(final, "LABEL")
      .map((i) => i.args)
      .join(" ");
    expect(labels).toContain('org.opencontainers.image.source="${SOURCE}"');
    expect(labels).toContain('org.opencontainers.image.version="${VERSION}"');
    expect(labels).toContain('org.opencontainers.image.revision="${REVISION}"');
    expect(labels).toContain('org.opencontainers.image.licenses="Apache-2.0"');
    expect(instructions(final, "ENV").map((i) => i.args)).toContain("THREATBRIDGE_REVISION=${REVISION}");
  });

  it(".dockerignore keeps node_modules, dist, state data and secrets out of the build context", async () => {
    const lines = (await readFile(join(ROOT, ".dockerignore"), "utf8"))
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("#"));
    // An allow-list: everything is out unless named.
    expect(lines[0]).toBe("*");
    const allowed = lines.filter((l) => l.startsWith("!")).map((l) => l.slice(1).replace(/\/$/, ""));
    for (const needed of [
      "package.json",
      "package-lock.json",
      "tsconfig.json",
      "tsconfig.build.json",
      // `npm run build` bundles the CLI with it.
      "scripts/bundle-cli.mjs",
      "src",
      "config",
    ]) {
      expect(allowed).toContain(needed);
    }
    for (const secret of ["node_modules", "dist", "data", ".env", ".git"])
      expect(allowed).not.toContain(secret);
  });
});

describe("production install (what the runtime stage does)", () => {
  it("runs the CLI with production dependencies only: --version, config validate and the demo", async () => {
    if (!existsSync(join(ROOT, "dist", "cli.js"))) {
      throw new Error("dist/cli.js is missing: run `npm run build` first (npm test does)");
    }
    const dir = await mkdtemp(join(tmpdir(), "threatbridge-prod-"));
    try {
      for (const entry of ["package.json", "package-lock.json", "dist", "config"]) {
        await cp(join(ROOT, entry), join(dir, entry), { recursive: true });
      }
      const install = await run(
        "npm",
        ["ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"],
        {
          cwd: dir,
        },
      );
      expect(install.code, install.out).toBe(0);
      expect(existsSync(join(dir, "node_modules", "vitest"))).toBe(false);

      const pkg: unknown = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8"));
      const version = typeof pkg === "object" && pkg !== null && "version" in pkg ? String(pkg.version) : "";
      const cli = join("dist", "cli.js");
      const env = { PATH: process.env["PATH"] ?? "", NODE_ENV: "production" };
      const v = await run(process.execPath, [cli, "--version"], { cwd: dir, env });
      expect(v.out.trim()).toBe(version);

      const validate = await run(
        process.execPath,
        [cli, "config", "validate", "-c", "config/threatbridge.yaml"],
        {
          cwd: dir,
          env: { ...env, PLATFORM_CLIENT_ID: "id", PLATFORM_CLIENT_SECRET: "secret", GITHUB_TOKEN: "ghp_x" },
        },
      );
      expect(validate.code, validate.out).toBe(0);

      const demo = await run(process.execPath, [cli, "demo"], { cwd: dir, env });
      expect(demo.code, demo.out).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
