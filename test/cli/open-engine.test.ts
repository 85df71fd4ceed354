import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openEngine } from "../../src/cli/open-engine.js";
import { ConfigSchema, type Config } from "../../src/config/index.js";
import { silentLogger } from "../../src/observability/index.js";
import { LockHeldError } from "../../src/state/index.js";
import { collectingSink } from "../../src/cli/dry-run-output.js";
import { persist, setMeta } from "../../src/sync/index.js";

// Nothing here sends a request: opening the engine only builds the clients.
function configAt(statePath: string): Config {
  return ConfigSchema.parse({
    platform: {
      base_url: "http://127.0.0.1:9",
      token_url: "http://127.0.0.1:9/oauth/token",
      client_id: "id",
      client_secret: "secret",
    },
    github: { api_url: "http://127.0.0.1:9", token: "ghp_test", repository: "acme/threats" },
    state: { path: statePath },
  });
}

async function filesOf(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of (await readdir(dir)).sort()) out.set(name, await readFile(join(dir, name), "utf8"));
  return out;
}

describe("openEngine: the one way sync, dry run, run and demo assemble the engine", () => {
  let dir: string;
  let config: Config;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "threatbridge-open-"));
    config = configAt(join(dir, "state.json"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("holds the state lock until close (contract: a second writer exits 1 naming the holder), then lets the next one in", async () => {
    const first = await openEngine(config, { logger: silentLogger });
    await expect(openEngine(config, { logger: silentLogger })).rejects.toBeInstanceOf(LockHeldError);
    await first.close();
    const second = await openEngine(config, { logger: silentLogger });
    await second.close();
  });

  it("commits what the engine changed through the journaled store, and the next open reads it back", async () => {
    const first = await openEngine(config, { logger: silentLogger });
    setMeta(first.ctx, "platformNotBefore", 1_800_000_000_000);
    await persist(first.ctx);
    await first.close();
    const again = await openEngine(config, { logger: silentLogger });
    expect(again.ctx.state.platformNotBefore).toBe(1_800_000_000_000);
    await again.close();
  });

  it("dry run (contract): takes no lock and leaves every state file byte-for-byte as it was", async () => {
    const writer = await openEngine(config, { logger: silentLogger });
    setMeta(writer.ctx, "platformNotBefore", 1_800_000_000_000);
    await persist(writer.ctx);
    await writer.close();
    const before = await filesOf(dir);

    const holder = await openEngine(config, { logger: silentLogger });
    const dry = await openEngine(config, { logger: silentLogger, dryRun: collectingSink() });
    expect(dry.ctx.persist).toBeNull();
    expect(dry.ctx.state.platformNotBefore).toBe(1_800_000_000_000);
    await dry.close();
    await holder.close();
    expect(await filesOf(dir)).toEqual(before);
  });
});
