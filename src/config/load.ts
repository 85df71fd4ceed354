import { readFile } from "node:fs/promises";
import { LineCounter, parseDocument } from "yaml";
import type { YAMLError } from "yaml";
import { ConfigError } from "./errors.js";
import type { ConfigProblem } from "./errors.js";
import { interpolateDocument, UNRESOLVED_SECRET } from "./interpolate.js";
import { issuesToProblems } from "./problem-messages.js";
import { resolveSecretFiles, type ReadSecretFile } from "./secret-files.js";
import { ConfigSchema } from "./schema.js";
import type { Config } from "./schema.js";

/**
 * YAML file → `${VAR}` interpolation → secret files → zod validation → typed Config. Every failure
 * is one ConfigError listing every problem of the file with its line and key path (a YAML syntax
 * error stops there: nothing after it can be read), so the CLI can exit 2 before any network call
 * (contract, "Configuration").
 */

export interface LoadedConfig {
  config: Config;
  /** The file it came from, as given. */
  path: string;
  /** With `unresolvedSecrets: "warn"`: each secret left unresolved, by line; otherwise empty. */
  warnings: readonly ConfigProblem[];
}

type Env = Readonly<Record<string, string | undefined>>;

/** The contract's order: `-c FILE`, then `$THREATBRIDGE_CONFIG`, then `config/threatbridge.yaml`. */
export function resolveConfigPath(argvPath: string | undefined, env: Env): string {
  if (argvPath !== undefined && argvPath !== "") return argvPath;
  const fromEnv = env["THREATBRIDGE_CONFIG"];
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  return "config/threatbridge.yaml";
}

export interface LoadOptions {
  /**
   * `placeholder`: a secret (`client_secret`, `token`, `private_key`) or the id that goes with one
   * (`platform.client_id`, a GitHub App's ids) whose `${VAR}` is unset or empty reads as a
   * placeholder instead of failing, for commands that use no secret (`status`, `retry`, `rewind`;
   * contract). `warn`: the same, and each is named in `warnings` (`config validate`, which checks
   * a file without its secrets; a secret file is read, and one that cannot be is a warning too).
   */
  unresolvedSecrets?: "error" | "placeholder" | "warn";
  /** Reads `*_file` secrets (default: the file system). */
  readSecretFile?: ReadSecretFile;
}

export async function loadConfig(path: string, env: Env, opts: LoadOptions = {}): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    throw new ConfigError(
      path,
      [
        {
          path: "",
          line: null,
          message: `cannot read the configuration file (${readFailure(cause)}); pass another with -c FILE or $THREATBRIDGE_CONFIG`,
        },
      ],
      { cause },
    );
  }
  return parseConfigText(text, path, env, opts);
}

export function parseConfigText(text: string, path: string, env: Env, opts: LoadOptions = {}): LoadedConfig {
  const lines = new LineCounter();
  // prettyErrors off: its messages quote the offending source line, which may hold a secret.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  // No cause: the parser's own errors may quote a token of the source, i.e. part of a secret.
  if (doc.errors.length > 0) throw new ConfigError(path, syntaxProblems(doc.errors, text, lines));

  const warnings: ConfigProblem[] = [];
  const envProblems = interpolateDocument(doc, lines, env, ConfigSchema, { ...opts, warnings });
  const fileProblems = resolveSecretFiles(
    doc,
    lines,
    opts.readSecretFile,
    // A command that uses no secret reads no secret file either (status, contract).
    opts.unresolvedSecrets === "placeholder" ? UNRESOLVED_SECRET : undefined,
    opts.unresolvedSecrets === "warn" ? warnings : undefined,
  );

  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new ConfigError(path, [{ path: "", line: null, message: `YAML: ${message}` }], { cause });
  }
  // An empty file reads as null; validating {} names the sections that are required.
  // jitless: zod would otherwise compile a fast parser (`new Function`) for each object of the
  // schema on its first parse, and the config is parsed once a process: compiling costs more than
  // it saves.
  const result = ConfigSchema.safeParse(raw ?? {}, { reportInput: true, jitless: true });
  const earlier = [...envProblems, ...fileProblems];
  // A key already named (its variable unset, its secret file unreadable) is not named again for
  // the value it was left with.
  const named = (p: ConfigProblem): boolean =>
    earlier.some(
      (e) => p.path === e.path || p.path.startsWith(`${e.path}.`) || p.path.startsWith(`${e.path}[`),
    );
  const schemaProblems = result.success
    ? []
    : issuesToProblems(result.error.issues, { doc, lines, schema: ConfigSchema }).filter((p) => !named(p));
  const problems = [...earlier, ...schemaProblems];
  // No cause: zod's error holds the input values, secrets included, and causes get logged.
  if (problems.length > 0 || !result.success)
    throw new ConfigError(path, sortByLine(problems), { warnings: sortByLine(warnings) });
  return { config: result.data, path, warnings: sortByLine(warnings) };
}

function readFailure(cause: unknown): string {
  const code = cause instanceof Error && "code" in cause ? cause.code : undefined;
  if (code === "ENOENT") return "no such file";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "it is a directory";
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * One problem per line (the parser often reports one mistake several ways). A token the parser
 * quotes is cut off: it may be part of a secret.
 */
function syntaxProblems(errors: readonly YAMLError[], text: string, lines: LineCounter): ConfigProblem[] {
  const sourceLines = text.split(/\r?\n/);
  const problems: ConfigProblem[] = [];
  for (const error of errors) {
    const line = lines.linePos(error.pos[0]).line;
    if (problems.some((p) => p.line === line)) continue;
    const reason = error.message.replace(/:\s*".*$/s, "");
    // `[team-${TEAM}]`: braces are flow syntax in YAML, so such a value needs quotes.
    const hint =
      sourceLines[line - 1]?.includes("${") === true ? " (quote a value that holds ${VAR}: '${VAR}')" : "";
    problems.push({ path: "", line, message: `YAML syntax: ${reason}${hint}` });
  }
  return problems;
}

function sortByLine(problems: ConfigProblem[]): ConfigProblem[] {
  return [...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}
