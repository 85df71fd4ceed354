import { readFile, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, type World } from "../e2e/world.js";

/**
 * undici is the platform's transport, loaded on the platform's first request: the commands that
 * never reach the platform (`status`, `config validate`, `retry`) must not pay its start-up. The
 * BUILT CLI, with a preloaded probe that records every package the process resolves; `sync`, which
 * does reach the platform, shows that the probe sees undici when it is loaded.
 */

const PROBE = pathToFileURL(resolve(import.meta.dirname, "module-probe.mjs")).href;

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("undici is loaded only by commands that reach the platform", () => {
  it("sync loads it; config validate, status and retry do not", async () => {
    const probe = join(process.env["TMPDIR"] ?? "/tmp", `threatbridge-probe-${process.pid}-${Date.now()}`);
    world = await startWorld({}, "", { env: { NODE_OPTIONS: `--import=${PROBE}`, MODULE_PROBE_OUT: probe } });
    const w = world;
    const loaded = async (args: string[]): Promise<string[]> => {
      await rm(probe, { force: true });
      const result = await w.cli([...args, "-c", w.configPath], { timeoutMs: 30_000 });
      expect(result.code, result.stderr).toBe(0);
      const text = await readFile(probe, "utf8").catch(() => "");
      return text.split("\n").filter((s) => s !== "");
    };
    try {
      // Only its pool and request API are loaded, by path (src/platform/undici-parts.ts).
      const undici = (packages: string[]): string[] =>
        packages.filter((p) => p === "undici" || p.startsWith("undici/"));
      expect(undici(await loaded(["sync"]))).not.toEqual([]);
      for (const args of [["config", "validate"], ["status"], ["retry", "--all"]]) {
        const packages = await loaded(args);
        // The probe ran (the CLI's own packages show), and undici is not among them.
        expect(packages.length, args.join(" ")).toBeGreaterThan(0);
        expect(undici(packages), args.join(" ")).toEqual([]);
        // status logs nothing: pino is loaded on the first logger made (observability/pino-module.ts).
        if (args[0] === "status") expect(packages.filter((p) => p.startsWith("pino"))).toEqual([]);
      }
    } finally {
      await rm(probe, { force: true });
    }
  }, 90_000);
});
