import { createGitHub } from "../github/index.js";
import { createPlatformClient } from "../platform/index.js";
import { runChecks } from "./check/checks.js";
import { checksJson, formatChecks } from "./check/report.js";
import { configFromArgs, type Io } from "./io.js";
import { CHECK } from "./command-specs.js";
import { parseCommand } from "./usage.js";
import { cliLogger, githubAuth, platformEndpoint, secretsOf } from "./wiring.js";

/** A preflight answers in seconds: no long retries, short timeouts, one small page per stream. */
const CHECK_TIMEOUT_MS = 15_000;

/**
 * `threatbridge check [-c FILE] [--json]` (contract): an online preflight, one line per check (or
 * one JSON document); exit 0 when all pass, 1 when any fails, 2 on a config error. It only reads.
 */
export async function checkCommand(args: string[], io: Io): Promise<number> {
  const opts = parseCommand(CHECK, args);
  const { config } = await configFromArgs(opts.config, io.env);
  const secrets = secretsOf(config);
  const logger = cliLogger(config, io.env, secrets);
  const platform = createPlatformClient({
    ...platformEndpoint(config),
    pageLimit: 1,
    timeoutMs: Math.min(config.platform.timeout_ms, CHECK_TIMEOUT_MS),
    maxRetries: 0,
    maxEmptyPages: 1,
    emptyPageDelayMs: 0,
    logger,
    secrets,
  });
  const github = createGitHub({
    apiUrl: config.github.api_url,
    auth: githubAuth(config),
    // check never writes; the budget is only there because the gateway has one.
    writeBudget: { perMinute: 0, perHour: 0, minIntervalMs: 0 },
    managedLabel: config.github.managed_label,
    issueType: config.github.issue_type,
    logger,
    timeoutMs: CHECK_TIMEOUT_MS,
    // Short back-off: a refused connection is reported in about a second, not after a minute.
    retryAfterBaseValue: 50,
  });
  try {
    const results = await runChecks(config, { platform, github, conversation: github });
    io.out(secrets.scrub(opts.json === true ? checksJson(results) : formatChecks(results)));
    return results.some((r) => r.status === "fail") ? 1 : 0;
  } finally {
    await platform.close();
  }
}
