import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig, resolveConfigPath } from "../../src/config/index.js";
import { ENV, errorOf, minimalPlus, parse } from "./helpers.js";

const CONTRACT_EXAMPLE = readFileSync(new URL("./fixtures/contract-example.yaml", import.meta.url), "utf8");
const SHIPPED_EXAMPLE = readFileSync(new URL("../../config/threatbridge.yaml", import.meta.url), "utf8");

describe("the contract's example YAML", () => {
  it("validates with the environment variables set, every value where the contract puts it", () => {
    const { config } = parse(CONTRACT_EXAMPLE);
    expect(config.platform).toMatchObject({
      base_url: "https://api.example.com",
      token_url: "https://idp.example.com/oauth/token",
      client_id: "threatbridge",
      client_secret: "platform-s3cr3t-value",
      token_auth: "client_secret_basic",
    });
    expect(config.github).toMatchObject({
      api_url: "https://api.github.com",
      token: "ghp_t0ken-value",
      repository: "acme/security-threats",
      write_budget: { per_minute: 80, per_hour: 500, min_interval_ms: 1000 },
    });
    expect(config.state.path).toBe("./data/state.json");
    expect(config.schedule).toBe("*/15 * * * * *");
    expect(config.health.port).toBe(9464);
    expect(config.filters.min_severity).toBe("informational");
    expect(config.routes).toEqual([
      {
        match: { severity: ["critical"] },
        repository: "acme/urgent",
        labels: ["urgent"],
        assignees: ["a-github-login"],
      },
    ]);
    expect(config.fields.threat).toMatchObject({
      title: "name",
      severity: "severity",
      module: "module",
      asset_id: "asset_id",
    });
    expect(config.fields.asset).toEqual({ name: "name", type: "type" });
  });

  it("fails without its environment variables, naming each one", () => {
    const error = errorOf(CONTRACT_EXAMPLE, {});
    expect(error.problems.map((p) => p.path)).toEqual([
      "platform.client_id",
      "platform.client_secret",
      "github.token",
    ]);
    expect(error.message).toContain("PLATFORM_CLIENT_SECRET");
  });
});

describe("defaults", () => {
  it("fills every key the contract gives a default from the smallest valid file", () => {
    const { config } = parse(minimalPlus());
    const closeNote = "Closed on GitHub ({{ issue }}) by {{ login }} as {{ reason }}.";
    expect(config).toEqual({
      platform: {
        base_url: "https://api.example.com",
        token_url: "https://idp.example.com/oauth/token",
        client_id: "threatbridge",
        client_secret: "platform-s3cr3t-value",
        token_auth: "client_secret_basic",
        page_limit: 500,
        timeout_ms: 30_000,
      },
      github: {
        api_url: "https://api.github.com",
        token: "ghp_t0ken-value",
        repository: "acme/security-threats",
        managed_label: "threatbridge",
        write_budget: { per_minute: 80, per_hour: 500, min_interval_ms: 1000 },
      },
      state: { path: "./data/state.json" },
      // Contract: the default polls every 15 s.
      schedule: "*/15 * * * * *",
      health: { port: 9464, host: "0.0.0.0" },
      log: { level: "info" },
      filters: { min_severity: "informational", create_for_statuses: ["unsolved", "pending"] },
      routes: [],
      recurrence: "reopen",
      fields: {
        threat: {
          title: "name",
          severity: "severity",
          module: "module",
          asset_id: "asset_id",
          age: "age_days",
          description: "description",
          note: "note",
        },
        asset: { name: "name", type: "type" },
      },
      verdicts: {
        closed: {
          completed: { status: "solved", status_note: closeNote },
          not_planned: { status: "solved", status_note: closeNote },
          duplicate: { status: "solved", status_note: closeNote },
        },
        reopened: { status: "unsolved", status_note: "Reopened on GitHub ({{ issue }}) by {{ login }}." },
      },
      templates: {},
    });
  });

  it("fills the keys left out of a partly written section", () => {
    const { config } = parse(
      minimalPlus("  write_budget:", "    per_hour: 0", "health:", "  host: 127.0.0.1"),
    );
    expect(config.github.write_budget).toEqual({ per_minute: 80, per_hour: 0, min_interval_ms: 1000 });
    expect(config.health).toEqual({ port: 9464, host: "127.0.0.1" });
  });
});

describe("config/threatbridge.yaml (the shipped example)", () => {
  it("validates with PLATFORM_CLIENT_ID, PLATFORM_CLIENT_SECRET and GITHUB_TOKEN, pointing at `simulate --port 8080`", () => {
    const { config } = parse(SHIPPED_EXAMPLE);
    expect(config.platform.base_url).toBe("http://127.0.0.1:8080");
    expect(config.platform.token_url).toBe("http://127.0.0.1:8080/oauth/token");
    expect(config.platform.client_secret).toBe(ENV.PLATFORM_CLIENT_SECRET);
    expect(config.github.token).toBe(ENV.GITHUB_TOKEN);
    // The GitHub stand-in of `simulate --with-github`: the example points at both fakes, so the
    // demo's hint works as written.
    expect(config.github.api_url).toBe("http://127.0.0.1:8081");
    expect(config.routes).toEqual([]);
    // Its explicit values are the defaults, so it behaves like the smallest file.
    const minimal = parse(minimalPlus()).config;
    expect({
      ...config,
      platform: minimal.platform,
      github: { ...config.github, api_url: minimal.github.api_url },
    }).toEqual(minimal);
  });

  it("takes the platform and GitHub endpoints from the environment when set", () => {
    const { config } = parse(SHIPPED_EXAMPLE, {
      ...ENV,
      PLATFORM_BASE_URL: "https://api.example.com",
      PLATFORM_TOKEN_URL: "https://idp.example.com/token",
      GITHUB_API_URL: "https://ghe.example.com/api/v3",
      GITHUB_REPOSITORY: "acme/other",
    });
    expect(config.platform.base_url).toBe("https://api.example.com");
    expect(config.platform.token_url).toBe("https://idp.example.com/token");
    expect(config.github.api_url).toBe("https://ghe.example.com/api/v3");
    expect(config.github.repository).toBe("acme/other");
  });

  it("points editors at the committed JSON Schema", () => {
    expect(SHIPPED_EXAMPLE.split("\n")[0]).toBe("# yaml-language-server: $schema=./threatbridge.schema.json");
  });
});

describe("loadConfig", () => {
  let dir = "";
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "threatbridge-config-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads, interpolates and validates a file, answering the path it came from", async () => {
    const path = join(dir, "tb.yaml");
    await writeFile(path, minimalPlus("schedule: '*/1 * * * *'"));
    const loaded = await loadConfig(path, ENV);
    expect(loaded.path).toBe(path);
    expect(loaded.config.schedule).toBe("*/1 * * * *");
  });

  it("a missing file is a ConfigError naming the file and saying how to pass another", async () => {
    const path = join(dir, "nope.yaml");
    const error = await loadConfig(path, ENV).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    if (!(error instanceof ConfigError)) return;
    expect(error.code).toBe("config_invalid");
    expect(error.file).toBe(path);
    expect(error.message).toBe(
      `${path}: cannot read the configuration file (no such file); pass another with -c FILE or $THREATBRIDGE_CONFIG`,
    );
  });

  it("a directory instead of a file says so", async () => {
    await expect(loadConfig(dir, ENV)).rejects.toThrow(
      `${dir}: cannot read the configuration file (it is a directory)`,
    );
  });

  it("a file that fails validation is a ConfigError naming that file", async () => {
    const path = join(dir, "bad.yaml");
    await writeFile(path, minimalPlus("schedule: never"));
    await expect(loadConfig(path, ENV)).rejects.toThrow(`${path}:9: schedule: not a valid cron expression`);
  });
});

describe("an empty file", () => {
  it("names the required sections", () => {
    const error = errorOf("");
    expect(error.message).toBe(
      ["test.yaml: platform: required key is missing", "test.yaml: github: required key is missing"].join(
        "\n",
      ),
    );
  });
});

describe("resolveConfigPath (contract: -c, then $THREATBRIDGE_CONFIG, then config/threatbridge.yaml)", () => {
  it("prefers -c", () => {
    expect(resolveConfigPath("a.yaml", { THREATBRIDGE_CONFIG: "b.yaml" })).toBe("a.yaml");
  });
  it("falls back to $THREATBRIDGE_CONFIG", () => {
    expect(resolveConfigPath(undefined, { THREATBRIDGE_CONFIG: "b.yaml" })).toBe("b.yaml");
  });
  it("then to config/threatbridge.yaml", () => {
    expect(resolveConfigPath(undefined, {})).toBe("config/threatbridge.yaml");
    expect(resolveConfigPath(undefined, { THREATBRIDGE_CONFIG: "" })).toBe("config/threatbridge.yaml");
  });
});
