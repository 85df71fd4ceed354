/**
 * The one error of this folder. It names the file, and for each problem the line and the key path,
 * so the operator can fix the YAML without guessing. Messages never carry the value of a secret key
 * (see `problem-messages.ts`).
 */

export interface ConfigProblem {
  /** Dotted key path with list indexes, e.g. `routes[0].match.severity[1]`; "" for the whole file. */
  path: string;
  /** 1-based line in the file, or null when no line fits (e.g. a top-level key that is missing). */
  line: number | null;
  message: string;
}

export class ConfigError extends Error {
  readonly code = "config_invalid";
  readonly file: string;
  readonly problems: readonly ConfigProblem[];
  /** What `config validate` warns of besides the errors (a secret left unset), so none is lost. */
  readonly warnings: readonly ConfigProblem[];

  constructor(
    file: string,
    problems: readonly ConfigProblem[],
    options?: { cause?: unknown; warnings?: readonly ConfigProblem[] },
  ) {
    super(problems.map((p) => formatProblem(file, p)).join("\n"), options);
    this.name = "ConfigError";
    this.file = file;
    this.problems = problems;
    this.warnings = options?.warnings ?? [];
  }
}

/** `file:line: key.path: message`; the line and the key path are left out when there is none. */
function formatProblem(file: string, problem: ConfigProblem): string {
  const where = problem.line === null ? file : `${file}:${problem.line}`;
  return problem.path === ""
    ? `${where}: ${problem.message}`
    : `${where}: ${problem.path}: ${problem.message}`;
}

/** Renders a key path the way operators read it: `routes[0].match.severity[1]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

/** Keys whose values are secrets: never printed in a message, replaced in `redactConfig`. */
export const SECRET_KEYS: ReadonlySet<string> = new Set([
  "client_secret",
  "token",
  "private_key",
  "secret",
  "previous_secrets",
]);

export function isSecretPath(path: readonly PropertyKey[]): boolean {
  return path.some((segment) => typeof segment === "string" && SECRET_KEYS.has(segment));
}
