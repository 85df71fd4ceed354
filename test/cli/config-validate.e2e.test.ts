import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runMain } from "../e2e/world.js";

/** `threatbridge config validate` needs no secret and names every problem of the file at once. */

const SHIPPED = resolve(import.meta.dirname, "../../config/threatbridge.yaml");
const PATH_ONLY = { PATH: process.env["PATH"] ?? "" };
let dir = "";

afterAll(async () => {
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

describe("config validate", () => {
  it("needs no secret: the shipped config with no variable set is valid, each unset secret a warning on stderr, exit 0", async () => {
    const r = await runMain(["config", "validate", "-c", SHIPPED], PATH_ONLY);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${SHIPPED}: valid, with 3 warnings\n`);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(3);
    for (const name of ["PLATFORM_CLIENT_ID", "PLATFORM_CLIENT_SECRET", "GITHUB_TOKEN"])
      expect(r.stderr).toContain(
        `warning: environment variable ${name} is not set: sync, run, reconcile and check need it`,
      );
    expect(lines[2]).toMatch(
      new RegExp(`^${SHIPPED.replaceAll("/", "\\/")}:\\d+: github\\.token: warning: `),
    );
    // No hint to write a default secret into the file.
    expect(r.stderr).not.toContain(":-default");
  });

  it("the commands that use a secret still stop on it, with a hint that names no default", async () => {
    const r = await runMain(["sync", "-c", SHIPPED, "--dry-run"], PATH_ONLY);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "github.token: environment variable GITHUB_TOKEN is not set (set it, or give the key's _file form",
    );
    expect(r.stderr).not.toContain("GITHUB_TOKEN:-default");
  });

  it("every error of the file in one run, exit 2, and its unset secrets as warnings beside them", async () => {
    dir = await mkdtemp(join(tmpdir(), "threatbridge-validate-"));
    const file = join(dir, "broken.yaml");
    await writeFile(
      file,
      [
        "platform:",
        "  base_url: ${PLATFORM_URL}",
        "  token_url: https://idp.example.com/oauth/token",
        "  client_id: threatbridge",
        "  client_secret: ${PLATFORM_CLIENT_SECRET}",
        "github:",
        "  token: ${GITHUB_TOKEN}",
        "  repository: not-a-repository",
        "schedule: 15",
        "",
      ].join("\n"),
    );
    const r = await runMain(["config", "validate", "-c", file], PATH_ONLY);
    expect(r.code).toBe(2);
    const errors = r.stderr.split("\n").filter((l) => l.startsWith(`${file}:`) && !l.includes("warning:"));
    expect(errors.map((l) => /^[^:]+:(\d+): ([\w.]+):/.exec(l)?.slice(1).join(" "))).toEqual([
      "2 platform.base_url",
      "8 github.repository",
      "9 schedule",
    ]);
    const warnings = r.stderr.split("\n").filter((l) => l.includes(": warning: "));
    expect(warnings.map((l) => /^[^:]+:(\d+): ([\w.]+): warning: /.exec(l)?.slice(1).join(" "))).toEqual([
      "5 platform.client_secret",
      "7 github.token",
    ]);
  });
});
