import { afterEach, describe, expect, it } from "vitest";
import { startWorld, type World } from "./world.js";

/** Contract, "Logs go to stderr": JSON lines when stderr is not a terminal, `log.format` forces one. */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function platformDown(w: World): Promise<void> {
  const answer = await fetch(`${w.sim.url}/_sim/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rate_500: 1 }),
  });
  expect(answer.status).toBe(200);
}

describe("logs of the built CLI", () => {
  it("stderr not a terminal: JSON lines with level names; a failed sync logs its failure once", async () => {
    world = await startWorld();
    await platformDown(world);
    const result = await world.cli(["sync", "-c", world.configPath]);
    expect(result.code).toBe(1);
    const lines = result.stderr
      .split("\n")
      .filter(Boolean)
      .map((line): unknown => JSON.parse(line));
    const levels = lines.map((l) => (typeof l === "object" && l !== null && "level" in l ? l.level : null));
    expect(levels.every((level) => typeof level === "string")).toBe(true);
    expect(levels.filter((level) => level === "error")).toHaveLength(1);
  });

  it("log.format: pretty forces readable text, also when stderr is not a terminal", async () => {
    world = await startWorld({}, "log:\n  format: pretty\n");
    await platformDown(world);
    const result = await world.cli(["sync", "-c", world.configPath]);
    expect(result.code).toBe(1);
    const errorLines = result.stderr.split("\n").filter((line) => line.includes("ERROR"));
    expect(errorLines).toHaveLength(1);
    expect(errorLines[0]).toContain("cycle failed");
    expect(result.stderr).not.toMatch(/^\{"level"/m);
  });
});
