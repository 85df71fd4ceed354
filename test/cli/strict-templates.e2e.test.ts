import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, type World } from "../e2e/world.js";

/**
 * Contract, "Templates": templates are checked by `config validate`, `sync`, `run` and `check`
 * before any network call; a variable or filter that does not exist for that template is a config
 * error (exit 2, file, line, key, and a "did you mean" where one fits).
 */

const TYPOS = `templates:
  title: "[{{ threat.severity }}] {{ threat.titel }}"
acceptance:
  status_note: "Risk accepted on GitHub ({{ isue }}) until {{ until }}."
`;

let world: World;
beforeAll(async () => {
  world = await startWorld({ threats: 2, assets: 1 }, TYPOS);
});
afterAll(async () => {
  await world.close();
});

function expectNamed(stderr: string): void {
  expect(stderr).toContain(`${world.configPath}:14: templates.title: invalid template`);
  expect(stderr).toMatch(/unknown variable `threat\.titel`.*did you mean `threat\.title`\?/);
  expect(stderr).toContain(`${world.configPath}:16: acceptance.status_note: invalid template`);
  expect(stderr).toMatch(/unknown variable `isue`.*did you mean `issue`\?/);
}

describe("strict templates through the built CLI", () => {
  it("config validate exits 2 naming the file, line, key and the variable meant", async () => {
    const result = await world.cli(["config", "validate", "-c", world.configPath]);
    expect(result.code).toBe(2);
    expectNamed(result.stderr);
  });

  it("sync, check and run exit 2 the same way, before any request to either side", async () => {
    for (const command of [["sync"], ["sync", "--dry-run"], ["check"], ["run"]]) {
      const result = await world.run([...command, "-c", world.configPath]);
      expect(result.code, command.join(" ")).toBe(2);
      expectNamed(result.stderr);
    }
    expect(world.sim.sim.stats().requests ?? 0).toBe(0);
    expect(world.gh.counters().requests).toBe(0);
  });
});
