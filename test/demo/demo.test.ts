import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { Io } from "../../src/cli/io.js";
import { openEngine } from "../../src/cli/open-engine.js";
import { runDemo } from "../../src/demo/index.js";
import { silentLogger } from "../../src/observability/index.js";

describe("threatbridge demo", () => {
  it("narrates issues created, the free echo, a verdict round trip, a reopen and an asset removal, and exits 0", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io: Io = { out: (l) => out.push(l), err: (l) => err.push(l), env: {} };
    const code = await main(["demo"], io);
    const text = out.join("\n");
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(text).toMatch(/Created [1-9]\d* issues?/);
    expect(text).toMatch(/external_id "acme\/security-threats#\d+"/);
    expect(text).toContain("GitHub writes this cycle: 0.");
    expect(text).toMatch(/sends PATCH \/v1\/threats\/\S+ status=solved \(1 verdict sent\)/);
    expect(text).toContain('The platform answers "pending"');
    expect(text).toMatch(/#\d+ stays closed/);
    expect(text).toMatch(/#\d+ is reopened/);
    expect(text).toMatch(/[1-9]\d* issues? closed as "not planned"/);
    expect(text).toMatch(/Platform: \d+ requests on 1 access token/);
  });

  it("leaves nothing behind: its temp state directory is removed at the end", async () => {
    const root = await mkdtemp(join(tmpdir(), "threatbridge-demo-test-"));
    try {
      const lines: string[] = [];
      await runDemo({
        say: (l) => lines.push(l),
        logger: silentLogger,
        openEngine: (config, logger) => openEngine(config, { logger }),
        tmpRoot: root,
      });
      expect(lines.at(-1)).toMatch(/^Done\./);
      expect(await readdir(root)).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("takes no options: a wrong one is a usage error (exit 2)", async () => {
    const err: string[] = [];
    const code = await main(["demo", "--fast"], { out: () => undefined, err: (l) => err.push(l), env: {} });
    expect(code).toBe(2);
    expect(err.join("\n")).toContain("--fast");
  });
});
