import { expect } from "vitest";
import { ConfigError, parseConfigText } from "../../src/config/index.js";
import type { ConfigProblem, LoadedConfig } from "../../src/config/index.js";

export const ENV = {
  PLATFORM_CLIENT_ID: "threatbridge",
  PLATFORM_CLIENT_SECRET: "platform-s3cr3t-value",
  GITHUB_TOKEN: "ghp_t0ken-value",
};

/** The smallest valid file; line numbers below refer to it (1-based). */
export const MINIMAL_LINES = [
  "platform:", // 1
  "  base_url: https://api.example.com", // 2
  "  token_url: https://idp.example.com/oauth/token", // 3
  "  client_id: ${PLATFORM_CLIENT_ID}", // 4
  "  client_secret: ${PLATFORM_CLIENT_SECRET}", // 5
  "github:", // 6
  "  token: ${GITHUB_TOKEN}", // 7
  "  repository: acme/security-threats", // 8
];

export function yamlOf(lines: readonly string[]): string {
  return `${lines.join("\n")}\n`;
}

/** The minimal file with more lines after it (they start at line 9). */
export function minimalPlus(...extra: string[]): string {
  return yamlOf([...MINIMAL_LINES, ...extra]);
}

export function parse(text: string, env: Record<string, string | undefined> = ENV): LoadedConfig {
  return parseConfigText(text, "test.yaml", env);
}

/** The ConfigError a text fails with (the test fails if it validates). */
export function errorOf(text: string, env: Record<string, string | undefined> = ENV): ConfigError {
  try {
    parse(text, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    if (error instanceof ConfigError) return error;
  }
  throw new Error("expected a ConfigError, but the text validated");
}

export function problemAt(error: ConfigError, path: string): ConfigProblem {
  const found = error.problems.find((p) => p.path === path);
  if (found === undefined) throw new Error(`no problem at ${path}; got:\n${error.message}`);
  return found;
}
