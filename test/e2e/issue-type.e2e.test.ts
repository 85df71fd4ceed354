import { readFile, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { StandInOptions } from "../../src/github-stand-in/index.js";
import { GH_TOKEN, REPO, startWorld, type World } from "./world.js";

/**
 * Contract, "Workflow" → "Issue type": `github.issue_type` is set (`type` on create) where the
 * repository offers that type (`GET /repos/{o}/{r}/issue-types`); elsewhere it is left out, said
 * once in the log and in `check`. Built CLI against the simulator and the GitHub stand-in, where
 * the organization `acme` offers the type and the user `alice` has no issue types.
 */

const ELSEWHERE = "alice/findings";
const TYPE = "Vulnerability";

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The world's config with `github.issue_type` and high/critical threats routed to `ELSEWHERE`. */
async function startWithType(standIn: StandInOptions): Promise<World> {
  const w = await startWorld(
    {},
    `routes:\n  - match: { severity: [high, critical] }\n    repository: ${ELSEWHERE}\n`,
    {
      standIn: { tokens: [GH_TOKEN], ...standIn },
    },
  );
  const text = await readFile(w.configPath, "utf8");
  await writeFile(
    w.configPath,
    text.replace(`  repository: ${REPO}\n`, `  repository: ${REPO}\n  issue_type: ${TYPE}\n`),
  );
  return w;
}

const typeLines = (stderr: string): string[] => stderr.split("\n").filter((l) => /issue type/i.test(l));

describe("github.issue_type (end to end)", () => {
  it("sync: issues get the type where the repository offers it; elsewhere they are created without, said once", async () => {
    world = await startWithType({ issueTypes: { acme: [TYPE, "Bug"] } });
    const result = await world.cli(["sync", "-c", world.configPath]);
    expect(result.code).toBe(0);
    const typed = world.gh.issues(REPO);
    const plain = world.gh.issues(ELSEWHERE);
    expect(typed.length).toBeGreaterThan(0);
    expect(plain.length).toBeGreaterThan(0);
    expect(typed.every((i) => i.type === TYPE)).toBe(true);
    expect(plain.every((i) => i.type === null)).toBe(true);
    // Said once for the repository without the type, not once per issue created there.
    const said = typeLines(result.stderr);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(ELSEWHERE);
    // The repository's types were read once in the process, not once per create.
    expect(world.gh.counters().byRoute["GET /repos/{owner}/{repo}/issue-types"]).toBe(2);
  });

  it("a GitHub without issue types (404): every issue is still created, without a type", async () => {
    world = await startWithType({ issueTypes: "unavailable" });
    const result = await world.cli(["sync", "-c", world.configPath]);
    expect(result.code).toBe(0);
    const all = [...world.gh.issues(REPO), ...world.gh.issues(ELSEWHERE)];
    expect(all.length).toBeGreaterThan(0);
    expect(all.every((i) => i.type === null)).toBe(true);
    expect(typeLines(result.stderr)).toHaveLength(2);
  });

  it("check: one line per repository — offered passes, not offered and unavailable warn; exit 0", async () => {
    world = await startWithType({ issueTypes: { acme: [TYPE] } });
    const result = await world.cli(["check", "-c", world.configPath]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines.find((l) => l.includes(`"${TYPE}" in ${REPO}`))).toMatch(/^ok {2}.*offered/);
    expect(lines.find((l) => l.includes(`"${TYPE}" in ${ELSEWHERE}`))).toMatch(/^WARN .*not offered/);
    await world.close();
    world = await startWithType({ issueTypes: "unavailable" });
    const json = await world.cli(["check", "-c", world.configPath, "--json"]);
    expect(json.code).toBe(0);
    const doc: unknown = JSON.parse(json.stdout);
    expect(doc).toMatchObject({
      ok: true,
      checks: expect.arrayContaining([
        expect.objectContaining({ check: `github issue type "${TYPE}" in ${REPO}`, status: "warn" }),
      ]),
    });
  });
});
