import { createGitHub } from "../github/index.js";
import { createPlatformClient } from "../platform/index.js";
import { runChecks } from "./check/checks.js";
import { checksJson, formatChecks } from "./check/report.js";
import { configFromArgs, type Io } from "./io.js";
import { CONFIG_OPTION, parse } from "./usage.js";
import { cliLogger } from "./wiring.js";

/** A preflight answers in seconds: no long retries, short timeouts, one small page per stream. */
const CHECK_TIMEOUT_MS = 15_000;

/**
 * `threatbridge check [-c FILE] [--json]` (contract): an online preflight, one line per check (or
 * one JSON document); exit 0 when all pass, 1 when any fails, 2 on a config error. It only reads.
 */
export async function checkCommand(args: string[], io: Io): Promise<number> {
  const opts = parse(args, { ...CONFIG_OPTION, json: { type: "boolean", default: false } });
  const { config } = await configFromArgs(opts.config, io.env);
  const logger = cliLogger(config, io.env);
  const platform = createPlatformClient({
    baseUrl: config.platform.base_url,
    tokenUrl: config.platform.token_url,
    clientId: config.platform.client_id,
    clientSecret: config.platform.client_secret,
    tokenAuth: config.platform.token_auth,
    ...(config.platform.scope !== undefined ? { scope: config.platform.scope } : {}),
    ...(config.platform.audience !== undefined ? { audience: config.platform.audience } : {}),
    pageLimit: 1,
    timeoutMs: Math.min(config.platform.timeout_ms, CHECK_TIMEOUT_MS),
    maxRetries: 0,
    maxEmptyPages: 1,
    emptyPageDelayMs: 0,
    logger,
  });
  const app = config.github.app;
  const github = createGitHub({
    apiUrl: config.github.api_url,
    auth: app
      ? {
          appId: app.app_id,
          privateKey: app.private_key,
          ...(app.installation_id !== undefined ? { installationId: app.installation_id } : {}),
        }
      : { token: config.github.token ?? "" },
    // check never writes; the budget is only there because the gateway has one.
    writeBudget: { perMinute: 0, perHour: 0, minIntervalMs: 0 },
    managedLabel: config.github.managed_label,
    logger,
    timeoutMs: CHECK_TIMEOUT_MS,
    // Short back-off: a refused connection is reported in about a second, not after a minute.
    retryAfterBaseValue: 50,
  });
  try {
    const results = await runChecks(config, { platform, github });
    io.out(opts.json === true ? checksJson(results) : formatChecks(results));
    return results.some((r) => r.status === "fail") ? 1 : 0;
  } finally {
    await platform.close();
  }
}
