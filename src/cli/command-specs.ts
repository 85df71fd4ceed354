import { CONFIG_OPTION, defineCommand } from "./usage.js";

/**
 * Every command's options and help, declared once: its module parses with the declaration
 * (`parseCommand(SYNC, args)`), `--help` prints it, and the command list (./commands.ts) names it.
 * This module loads nothing else, so `--help` costs no engine.
 */

/** Where `simulate` serves the platform simulator by default: config/threatbridge.yaml's base_url. */
export const SIMULATOR_PORT = 8080;
/** Where `simulate --with-github` serves the stand-in, and the token it accepts: the example config's. */
export const STAND_IN_PORT = 8081;
export const STAND_IN_TOKEN = "ghp_standin";

const DRY_RUN = {
  type: "boolean",
  default: false,
  help: "print what it would do; write nothing anywhere",
} as const;
const JSON_OUTPUT = { type: "boolean", default: false, help: "one JSON document instead of text" } as const;

export const RUN = defineCommand({
  name: "run",
  summary: "the daemon: a cycle now, then one per schedule",
  description: `The daemon: a cycle at start, then one per \`schedule\`; serves /healthz, /readyz and /metrics
on health.port. SIGTERM or SIGINT finish the write in flight, save the state and exit 0.`,
  options: { ...CONFIG_OPTION },
});

export const SYNC = defineCommand({
  name: "sync",
  summary: "exactly one cycle, then exit",
  description: `Exactly one cycle, then exit (0 ok, 1 failed, 2 config or usage error).

Queued: work waiting for github.write_budget (GitHub's writes are paced by it; the
platform's are not). It is kept in the state and done in priority order by the next
\`sync\` or \`run\`; \`status\` shows it and how long it takes at the budget.`,
  options: {
    ...CONFIG_OPTION,
    "dry-run": DRY_RUN,
    json: { ...JSON_OUTPUT, help: "one JSON object per action (with --dry-run), else the report as JSON" },
    "max-duration": {
      type: "string",
      arg: "S",
      help: "stop writing after S seconds; the rest stays queued",
    },
  },
});

export const RECONCILE = defineCommand({
  name: "reconcile",
  summary: "rebuild the threat-issue mapping",
  description: `Rebuild or repair the threat-issue mapping from the threats' github references and the issue
markers.`,
  options: {
    ...CONFIG_OPTION,
    "dry-run": DRY_RUN,
    json: { ...JSON_OUTPUT, help: "one JSON object per action (with --dry-run), else the report as JSON" },
    recreate: {
      type: "boolean",
      default: false,
      help: "threats whose issue a person deleted get a new one",
    },
  },
});

export const STATUS = defineCommand({
  name: "status",
  summary: "what the state file holds",
  description: `What the state file holds: cursors, mapped threats, issues, the last cycle, the queue and how
long it takes at the write budget. Reads the file only: no lock, no network.`,
  options: { ...CONFIG_OPTION, json: JSON_OUTPUT },
});

export const RETRY = defineCommand({
  name: "retry",
  summary: "re-queue work either side refused for good",
  synopsis: "[-c FILE] (--threat ID ... | --all) [--dry-run]",
  description: `Put work that GitHub or the platform refused for good (what \`status\` lists under
"refused") back in the queue, once its cause is removed (repository unarchived, conversation
unlocked, a field the platform refused, ...); the next cycle (\`sync\`, or the next of \`run\`)
reads those threats afresh and does what is due. Touches the
state file only: no network, no secret needed. Takes the state lock like \`sync\`: while \`run\`
or \`sync\` works on the state it exits 1 naming the holder (stop \`run\` first).
One line per threat re-queued, then the total. Exit 0 when everything asked for was re-queued
(also when --all finds nothing refused); 1 when an id named has no refused work (it is named;
the others are still re-queued) or the lock is held; 2 config or usage error.`,
  options: {
    ...CONFIG_OPTION,
    threat: {
      type: "string",
      multiple: true,
      arg: "ID",
      help: "threats whose refused work to re-queue: one or more ids, or repeat it",
    },
    all: { type: "boolean", default: false, help: "every threat with refused work" },
    "dry-run": {
      type: "boolean",
      default: false,
      help: "say what it would re-queue; the state stays byte-for-byte as it was",
    },
  },
});

export const REWIND = defineCommand({
  name: "rewind",
  summary: "forget a stream's cursor: read it from the start",
  synopsis: "[-c FILE] (--threats | --assets | --all) [--dry-run]",
  description: `Forget a stream's saved cursor, so that the next cycle (\`sync\`, or the next of \`run\`) reads
that stream from its beginning; what the state already holds is re-delivered and costs no GitHub
writes. The way out of a cursor the platform refuses (request/invalid-cursor: a state restored
from another installation, a platform-side reset), which stops that stream until then
(\`status\` says so). Touches the state file only: no network, no secret needed. Takes the
state lock like \`sync\`: while \`run\` or \`sync\` works on the state it exits 1 naming the
holder (stop \`run\` first).
Exit 0 done (also when there was nothing to forget); 1 the lock is held; 2 config or usage error.`,
  options: {
    ...CONFIG_OPTION,
    threats: { type: "boolean", default: false, help: "forget the threat stream's cursor" },
    assets: { type: "boolean", default: false, help: "forget the asset stream's cursor" },
    all: { type: "boolean", default: false, help: "both" },
    "dry-run": {
      type: "boolean",
      default: false,
      help: "say what it would forget; the state stays byte-for-byte as it was",
    },
  },
});

export const CHECK = defineCommand({
  name: "check",
  summary: "online preflight of platform and GitHub",
  description: `Online preflight: a platform token, one page of each stream, the GitHub credentials, and for
every configured repository that it can be read, has issues enabled, is not archived and that
the credentials may write issues. One line per check, with a hint for each failure.
Exit 0 all pass, 1 any fails, 2 config error.`,
  options: { ...CONFIG_OPTION, json: JSON_OUTPUT },
});

export const CONFIG_VALIDATE = defineCommand({
  name: "config validate",
  summary: "validate the config, no network",
  description: `Validate the config without any network call and without any secret: exit 0 and \`FILE: valid\`,
or 2 and every problem of the file. A secret (or the id that goes with it) whose variable is unset,
or whose _file cannot be read, is a warning on stderr: it stops only the commands that use it
(sync, run, reconcile, check).`,
  options: { ...CONFIG_OPTION },
});

export const CONFIG_SCHEMA = defineCommand({
  name: "config schema",
  summary: "print the config's JSON Schema",
  description: "Print the config's JSON Schema (for an editor's completion and checks).",
  options: {},
});

export const SIMULATE = defineCommand({
  name: "simulate",
  summary: "serve the platform simulator (and a GitHub stand-in)",
  description: `Serve the platform simulator (default http://127.0.0.1:8080) until stopped. --with-github also
serves the local GitHub stand-in (default http://127.0.0.1:8081, token ghp_standin), so that
config/threatbridge.yaml works against both as it stands.`,
  options: {
    host: { type: "string", default: "127.0.0.1", arg: "H", help: "address to serve on (default 127.0.0.1)" },
    port: {
      type: "string",
      default: String(SIMULATOR_PORT),
      arg: "N",
      help: `the simulator's port (default ${SIMULATOR_PORT}; 0 picks a free one)`,
    },
    seed: { type: "string", default: "1", arg: "N", help: "seed of the generated assets and threats" },
    assets: { type: "string", default: "40", arg: "N", help: "how many assets to generate" },
    threats: { type: "string", default: "150", arg: "N", help: "how many threats to generate" },
    "client-id": {
      type: "string",
      default: "threatbridge",
      arg: "ID",
      help: "the OAuth client id it accepts",
    },
    "client-secret": {
      type: "string",
      default: "threatbridge-secret",
      arg: "S",
      help: "that client's secret",
    },
    "read-only-client-id": {
      type: "string",
      default: "threatbridge-readonly",
      arg: "ID",
      help: "a client id that may only read",
    },
    "read-only-client-secret": {
      type: "string",
      default: "threatbridge-readonly-secret",
      arg: "S",
      help: "that client's secret",
    },
    "token-ttl": { type: "string", default: "300", arg: "S", help: "seconds an access token lives" },
    "with-github": {
      type: "boolean",
      default: false,
      help: "also serve the GitHub stand-in, with person controls under /_sim/ (README, Try it locally)",
    },
    "github-port": {
      type: "string",
      default: String(STAND_IN_PORT),
      arg: "N",
      help: `the stand-in's port (default ${STAND_IN_PORT}; 0 picks a free one)`,
    },
    "github-token": {
      type: "string",
      default: STAND_IN_TOKEN,
      arg: "T",
      help: `the token the stand-in accepts (default ${STAND_IN_TOKEN})`,
    },
  },
});

export const INIT = defineCommand({
  name: "init",
  summary: "write a starter config where the other commands find it",
  description: `Write the documented example config to D/config/threatbridge.yaml (D defaults to the current
directory), where the other commands read it when run from D without -c. As written it talks to
\`threatbridge simulate --with-github\`; its comments say what to set for real use. An existing
file is never overwritten (exit 2, naming it). Exit 0 written, 1 it could not be written.`,
  options: {
    dir: {
      type: "string",
      arg: "D",
      help: "the directory to write config/threatbridge.yaml under (default: the current directory)",
    },
  },
});

export const DEMO = defineCommand({
  name: "demo",
  summary: "simulator + GitHub stand-in + connector, narrated",
  description: "The simulator, a GitHub stand-in and the connector in one process, narrated; exits 0.",
  options: {
    workflow: {
      type: "boolean",
      default: false,
      help: "narrate the workflow features instead: a group's parent issue with its sub-issues, SLA due dates and a breach, a risk acceptance, its warning and its expiry (days pass on the connector's clock, not yours)",
    },
  },
});
