import { describe, expect, it } from "vitest";
import { ConfigError, parseConfigText, UNRESOLVED_SECRET } from "../../src/config/index.js";
import { ENV, minimalPlus, yamlOf, MINIMAL_LINES } from "./helpers.js";

/**
 * `config validate` needs no secret: an unset `${VAR}` of a secret (or of the id that goes with
 * it) is a warning naming it, and every error of the file is reported in one run.
 */

function errorOf(text: string, env: Record<string, string>, mode?: "warn"): ConfigError {
  try {
    parseConfigText(text, "test.yaml", env, mode === undefined ? {} : { unresolvedSecrets: mode });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("the text validated");
}

describe("config validate without secrets", () => {
  it("an unset secret or credential id is a warning naming the variable, its line and key, and the commands it stops", () => {
    const { config, warnings } = parseConfigText(
      minimalPlus(),
      "test.yaml",
      {},
      { unresolvedSecrets: "warn" },
    );
    expect(config.github.token).toBe(UNRESOLVED_SECRET);
    expect(warnings.map((w) => `${w.line} ${w.path}: ${w.message}`)).toEqual([
      "4 platform.client_id: environment variable PLATFORM_CLIENT_ID is not set: sync, run, reconcile and check need it; status, retry and rewind do not",
      "5 platform.client_secret: environment variable PLATFORM_CLIENT_SECRET is not set: sync, run, reconcile and check need it; status, retry and rewind do not",
      "7 github.token: environment variable GITHUB_TOKEN is not set: sync, run, reconcile and check need it; status, retry and rewind do not",
    ]);
    for (const w of warnings) expect(w.message).not.toContain(":-default");
  });

  it("a secret set but empty is named as empty; a secret file that cannot be read is a warning too", () => {
    const text = yamlOf([
      ...MINIMAL_LINES.filter((l) => !l.includes("token:")),
      "  token_file: /nonexistent/github-token",
    ]);
    const { warnings } = parseConfigText(
      text,
      "test.yaml",
      { ...ENV, PLATFORM_CLIENT_SECRET: "" },
      { unresolvedSecrets: "warn" },
    );
    expect(warnings.map((w) => w.path)).toEqual(["platform.client_secret", "github.token_file"]);
    expect(warnings[0]?.message).toMatch(/^environment variable PLATFORM_CLIENT_SECRET is empty: /);
    expect(warnings[1]?.message).toMatch(
      /^cannot read the secret file \/nonexistent\/github-token \(no such file\): /,
    );
  });

  it("with every secret set there is no warning", () => {
    expect(parseConfigText(minimalPlus(), "test.yaml", ENV, { unresolvedSecrets: "warn" }).warnings).toEqual(
      [],
    );
  });

  it("an unset variable of a key that is no secret stays an error: every command reads that key", () => {
    const error = errorOf(minimalPlus("state: { path: '${STATE_PATH}' }"), {}, "warn");
    expect(error.problems.map((p) => p.path)).toEqual(["state.path"]);
  });

  it("every error of the file in one run: an unset variable, an unreadable secret file and values the schema refuses, each once", () => {
    const text = yamlOf([
      ...MINIMAL_LINES.filter((l) => !l.includes("token:")),
      "  token_file: /nonexistent/github-token", // 8
      "  write_budget: { per_hour: -1 }", // 9
      "health: { port: '${HEALTH_PORT}' }", // 10
      "schedule: 15", // 11
      "filters: { min_severity: hgih }", // 12
    ]);
    const error = errorOf(text, ENV);
    expect(error.problems.map((p) => `${p.line} ${p.path}`)).toEqual([
      "8 github.token_file",
      "9 github.write_budget.per_hour",
      "10 health.port",
      "11 schedule",
      "12 filters.min_severity",
    ]);
  });
});
