import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/observability/index.js";
import { startDaemonWorld, until, type DaemonWorld } from "../daemon/daemon-world.js";

let world: DaemonWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("run: a failure is logged once, not once per layer it passes", () => {
  it("a cycle that fails on the platform writes one error line, not one from the cycle and one from the daemon", async () => {
    // The platform client's back-off between its retries is not what is checked: it waits for no time.
    world = await startDaemonWorld(undefined, { sleep: () => Promise.resolve() });
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({
      destination: new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const text of chunk.toString().split("\n").filter(Boolean)) {
            const line: unknown = JSON.parse(text);
            if (typeof line === "object" && line !== null) lines.push({ ...line });
          }
          done();
        },
      }),
    });
    world.ctx.logger = logger;
    // The platform answers every request with a 500: the cycle fails after the client's retries.
    const set = await fetch(`${world.sim.url}/_sim/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rate_500: 1 }),
    });
    expect(set.status).toBe(200);
    const daemon = world.daemon({ logger });
    const running = daemon.run();
    await until(() => daemon.status().cycles.failed === 1, "the failed cycle", 30_000);
    daemon.stop();
    await running;
    const errors = lines.filter((l) => l["level"] === "error");
    expect(errors).toHaveLength(1);
    expect(String(errors[0]?.["msg"])).toMatch(/next time|next tick/);
  }, 40_000);
});
