import { acquireLock, emptyState, openStateStore, readStateFile } from "../state/index.js";
import { createContext, runCycle, type CycleReport, type DryRunSink } from "../sync/index.js";
import { systemClock } from "../shared/clock.js";
import { CONFIG_OPTION, intOption, parse } from "./usage.js";
import { configFromArgs, type Io } from "./io.js";
import { buildConnector, cliLogger, scrubStateErrors, secretsOf } from "./wiring.js";

function dryRunSink(io: Io, json: boolean): DryRunSink {
  return {
    print(line) {
      if (json) {
        io.out(JSON.stringify(line));
        return;
      }
      const where = [line.repository, line.issue !== undefined ? `#${line.issue}` : undefined]
        .filter(Boolean)
        .join("");
      io.out(
        `${line.action.padEnd(8)} threat ${line.threat_id}${where ? ` ${where}` : ""}${line.detail ? `  ${line.detail}` : ""}`,
      );
    },
  };
}

function reportText(report: CycleReport, reconcile: boolean): string {
  const c = report.counters;
  const parts = [
    `cycle ${report.ok ? "ok" : "failed"}`,
    `read ${c["threats_read"] ?? 0} threats, ${c["assets_read"] ?? 0} assets`,
    `done ${report.drained.done}, failed ${report.drained.failed}, deferred ${report.drained.deferred}`,
    `created ${c["issues_created"] ?? 0}, updated ${(c["issues_updated"] ?? 0) + (c["issues_state_changed"] ?? 0)}, verdicts ${c["platform_verdicts"] ?? 0}, links ${c["platform_links"] ?? 0}`,
    `queued ${report.queue.total}`,
  ];
  if (reconcile) {
    parts.push(
      `adopted ${c["issues_adopted"] ?? 0} issues`,
      `second issues carrying a mapped threat's marker (left alone) ${c["duplicate_markers"] ?? 0}`,
    );
  }
  return parts.join("; ") + (report.error ? `\nerror: ${report.error}` : "");
}

/** `sync` and `reconcile`: exactly one cycle, then exit (0 ok, 1 failed, 2 config/usage). */
export async function syncCommand(args: string[], io: Io, mode: "sync" | "reconcile"): Promise<number> {
  const opts = parse(args, {
    ...CONFIG_OPTION,
    "dry-run": { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    ...(mode === "sync" ? { "max-duration": { type: "string" } } : {}),
    ...(mode === "reconcile" ? { recreate: { type: "boolean", default: false } } : {}),
  });
  const maxDuration = intOption(
    typeof opts["max-duration"] === "string" ? opts["max-duration"] : undefined,
    "max-duration",
    1,
    7 * 86_400,
  );
  const { config } = await configFromArgs(opts.config, io.env);
  const secrets = secretsOf(config);
  const logger = cliLogger(config, io.env, secrets);
  const json = opts.json === true;
  const reconcile = mode === "reconcile";
  // A stop ends the cycle between steps and abandons the platform request in flight, so that a
  // hung or trickling platform cannot hold a SIGTERM past a container's grace period (issue 6, item 5).
  const abort = new AbortController();
  const stop = (): void => abort.abort(new Error("signal"));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  // `reconcile --recreate`: threats whose issue a person deleted get a new one (issue 6, item 3).
  const recreate = reconcile && opts["recreate"] === true;
  try {
    if (opts["dry-run"] === true) {
      // Dry run: no lock, no state write — the file stays byte-for-byte as it was (contract).
      const state = (await readStateFile(config.state.path)) ?? emptyState();
      // The state is a copy here: a Retry-After is honoured but never written.
      const connector = buildConnector(config, logger, { secrets, stop: abort.signal, state });
      try {
        const ctx = createContext(
          { config, ...connector, logger, clock: systemClock, persist: null, dryRun: dryRunSink(io, json) },
          state,
        );
        const report = await runCycle(ctx, { reconcile, recreate, signal: abort.signal });
        if (report.error) io.err(`error: ${secrets.scrub(report.error)}`);
        return report.error ? 1 : 0;
      } finally {
        await connector.close();
      }
    }
    const lock = await acquireLock(config.state.path);
    try {
      const store = await openStateStore(config.state.path, { logger });
      const connector = buildConnector(config, logger, {
        secrets,
        stop: abort.signal,
        state: store.data,
      });
      try {
        const ctx = createContext(
          {
            config,
            ...connector,
            logger,
            clock: systemClock,
            persist: () => {
              scrubStateErrors(store.data, secrets);
              return store.write();
            },
          },
          store.data,
        );
        const deadline = maxDuration !== undefined ? Date.now() + maxDuration * 1000 : undefined;
        const report = await runCycle(ctx, {
          reconcile,
          recreate,
          ignoreBackoff: true,
          signal: abort.signal,
          ...(deadline !== undefined ? { deadline } : {}),
        });
        // Said where the operator looks: a Retry-After kept the platform's streams unread (issue 6, item 6).
        const notBefore = connector.platform.stats().notBefore;
        const waiting = notBefore === undefined ? undefined : new Date(notBefore).toISOString();
        const text = json
          ? JSON.stringify(waiting === undefined ? report : { ...report, platformNotBefore: waiting })
          : reportText(report, reconcile) +
            (waiting === undefined
              ? ""
              : `\nplatform: asked not to be called before ${waiting} (Retry-After); it is read after that`);
        io.out(secrets.scrub(text));
        return report.ok ? 0 : 1;
      } finally {
        await connector.close();
      }
    } finally {
      await lock.release();
    }
  } finally {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
  }
}
