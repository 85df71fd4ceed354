import { parseArgs, type ParseArgsConfig } from "node:util";

/** A wrong command line: exit 2 with the usage text. */
export class UsageError extends Error {
  readonly code = "usage";
}

/** Each command's usage: `threatbridge <command> --help` prints it (exit 0). */
export const COMMAND_USAGE: Readonly<Record<string, string>> = {
  run: `usage: threatbridge run [-c FILE]

The daemon: a cycle at start, then one per \`schedule\`; serves /healthz, /readyz and /metrics
on health.port. SIGTERM or SIGINT finish the write in flight, save the state and exit 0.`,
  sync: `usage: threatbridge sync [-c FILE] [--dry-run] [--json] [--max-duration S]

Exactly one cycle, then exit (0 ok, 1 failed, 2 config or usage error).
  --dry-run         print what it would do; write nothing anywhere
  --json            with --dry-run: one JSON object per action
  --max-duration S  stop writing after S seconds; the rest stays queued`,
  status: `usage: threatbridge status [-c FILE] [--json]

What the state file holds: cursors, mapped threats, issues, the last cycle, the queue.
Reads the file only: no lock, no network.`,
  retry: `usage: threatbridge retry [-c FILE] (--threat ID ... | --all) [--dry-run]

Put work that GitHub refused for good (what \`status\` lists under "refused") back in the queue,
once its cause is removed (repository unarchived, conversation unlocked, ...); the next cycle
(\`sync\`, or the next of \`run\`) reads those threats afresh and does what is due. Touches the
state file only: no network, no secret needed. Takes the state lock like \`sync\`: while \`run\`
or \`sync\` works on the state it exits 1 naming the holder (stop \`run\` first).
  --threat ID  a threat whose refused work to re-queue; repeat it for more
  --all        every threat with refused work
  --dry-run    say what it would re-queue; the state stays byte-for-byte as it was
One line per threat re-queued, then the total. Exit 0 when everything asked for was re-queued
(also when --all finds nothing refused); 1 when an id named has no refused work (it is named;
the others are still re-queued) or the lock is held; 2 config or usage error.`,
  rewind: `usage: threatbridge rewind [-c FILE] (--threats | --assets | --all) [--dry-run]

Forget a stream's saved cursor, so that the next cycle (\`sync\`, or the next of \`run\`) reads
that stream from its beginning; what the state already holds is re-delivered and costs no GitHub
writes. The way out of a cursor the platform refuses (request/invalid-cursor: a state restored
from another installation, a platform-side reset), which stops that stream until then
(\`status\` says so). Touches the state file only: no network, no secret needed. Takes the
state lock like \`sync\`: while \`run\` or \`sync\` works on the state it exits 1 naming the
holder (stop \`run\` first).
  --threats    forget the threat stream's cursor
  --assets     forget the asset stream's cursor
  --all        both
  --dry-run    say what it would forget; the state stays byte-for-byte as it was
Exit 0 done (also when there was nothing to forget); 1 the lock is held; 2 config or usage error.`,
  config: `usage: threatbridge config validate [-c FILE]   validate the config, no network (0 / 2)
       threatbridge config schema                print the config's JSON Schema`,
  check: `usage: threatbridge check [-c FILE] [--json]

Online preflight: a platform token, one page of each stream, the GitHub credentials, and for
every configured repository that it can be read, has issues enabled, is not archived and that
the credentials may write issues. One line per check, with a hint for each failure.
Exit 0 all pass, 1 any fails, 2 config error.`,
  reconcile: `usage: threatbridge reconcile [-c FILE] [--dry-run]

Rebuild or repair the threat-issue mapping from the threats' github references and the issue markers.`,
  simulate: `usage: threatbridge simulate [--host H] [--port N] [--seed N] [--assets N] [--threats N]
         [--client-id ID] [--client-secret S] [--read-only-client-id ID]
         [--read-only-client-secret S] [--token-ttl S]
         [--with-github] [--github-port N] [--github-token T]

Serve the platform simulator (default http://127.0.0.1:8080) until stopped. --with-github also
serves the local GitHub stand-in (default http://127.0.0.1:8081, token ghp_standin), so that
config/threatbridge.yaml works against both as it stands.`,
  demo: `usage: threatbridge demo [--workflow]

The simulator, a GitHub stand-in and the connector in one process, narrated; exits 0.
--workflow narrates the workflow features instead: a group's parent issue with its sub-issues,
SLA due dates and a breach, a risk acceptance, its warning and its expiry (days pass on the
connector's clock, not yours).`,
};

export const USAGE = `usage: threatbridge <command> [options]

commands:
  run        [-c FILE]                                       the daemon: a cycle now, then one per schedule
  sync       [-c FILE] [--dry-run] [--json] [--max-duration S] exactly one cycle, then exit
  status     [-c FILE] [--json]                              what the state file holds
  retry      [-c FILE] (--threat ID ... | --all) [--dry-run] re-queue work GitHub refused for good
  rewind     [-c FILE] (--threats | --assets | --all) [--dry-run]
                                                             forget a stream's cursor: read it from the start
  check      [-c FILE] [--json]                              online preflight of platform and GitHub
  config validate [-c FILE]                                  validate the config, no network
  config schema                                              print the config's JSON Schema
  reconcile  [-c FILE] [--dry-run] [--recreate]              rebuild the threat-issue mapping
  simulate   [--host H] [--port N] [--seed N] [--assets N] [--threats N] [--client-id ID]
             [--client-secret S] [--read-only-client-id ID] [--read-only-client-secret S] [--token-ttl S]
             [--with-github] [--github-port N] [--github-token T]
  demo       [--workflow]                                    simulator + GitHub stand-in + connector, narrated

\`threatbridge <command> --help\` shows one command's options.
-c defaults to $THREATBRIDGE_CONFIG, then config/threatbridge.yaml.
exit codes: 0 ok, 1 failed, 2 config or usage error.`;

type Options = NonNullable<ParseArgsConfig["options"]>;

export function parse<T extends Options>(
  args: string[],
  options: T,
): ReturnType<
  typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: false }>
>["values"] {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export function intOption(
  value: string | undefined,
  name: string,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} takes a whole number, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}`);
  return n;
}

export const CONFIG_OPTION = { config: { type: "string", short: "c" } } as const;
