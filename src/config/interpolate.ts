import { isMap, isScalar, isSeq } from "yaml";
import type { Document, LineCounter } from "yaml";
import type { z } from "zod";
import { formatPath, isSecretPath } from "./errors.js";
import type { ConfigProblem } from "./errors.js";
import { accepts } from "./schema-walk.js";
import { keyText } from "./yaml-lines.js";

/**
 * `${VAR}` and `${VAR:-default}` in scalar values (contract, "Configuration"). As in a shell, the
 * default also applies when VAR is set but empty. As in Docker Compose, `$$` writes a literal `$`,
 * so `$${` writes a literal `${` (and `$$${VAR}` a `$` before VAR's value); a `$` before anything
 * else stays as it is. Substitution is not recursive: a variable's value is used as it is. Keys
 * are never interpolated.
 */

type Env = Readonly<Record<string, string | undefined>>;
type Expansion = { value: string; changed: boolean; errors: string[] };

/** What a secret whose variable is unset reads as when the caller asked for no secrets. */
export const UNRESOLVED_SECRET = "(unresolved: not needed by this command)";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The ids that go with a secret: deployments give them in the same secret store as the secret
 * (`PLATFORM_CLIENT_ID` beside `PLATFORM_CLIENT_SECRET`), so a command that uses no credentials
 * treats them as it treats the secret. Each gets a placeholder its key accepts.
 */
const CREDENTIAL_IDS: ReadonlyMap<string, string | number> = new Map<string, string | number>([
  ["platform.client_id", UNRESOLVED_SECRET],
  ["github.app.app_id", 1],
  ["github.app.installation_id", 1],
]);

/** The placeholder of a secret or of a credential's id; undefined for any other key. */
function placeholderFor(path: readonly PropertyKey[]): string | number | undefined {
  return isSecretPath(path) ? UNRESOLVED_SECRET : CREDENTIAL_IDS.get(formatPath(path));
}

export function expandString(text: string, env: Env, showFragments: boolean): Expansion {
  let value = "";
  let changed = false;
  const errors: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text.startsWith("$$", i)) {
      value += "$";
      changed = true;
      i += 2;
      continue;
    }
    if (!text.startsWith("${", i)) {
      value += text.charAt(i);
      i += 1;
      continue;
    }
    const close = text.indexOf("}", i + 2);
    if (close === -1) {
      errors.push("unclosed ${ in the value (write $${ for a literal ${)");
      break;
    }
    const inner = text.slice(i + 2, close);
    const at = inner.indexOf(":-");
    const name = at === -1 ? inner : inner.slice(0, at);
    const fallback = at === -1 ? undefined : inner.slice(at + 2);
    if (!NAME.test(name) || fallback?.includes("${") === true) {
      const shown = showFragments ? `\${${inner}}` : "a ${...} reference";
      errors.push(`${shown} is not of the form \${NAME} or \${NAME:-default} (write $\${ for a literal \${)`);
    } else {
      const set = env[name];
      if (fallback !== undefined && (set === undefined || set === "")) value += fallback;
      else if (set !== undefined) value += set;
      // A secret's default would be a secret written into the file: its hint names the safe ways.
      else
        errors.push(
          showFragments
            ? `environment variable ${name} is not set (or write \${${name}:-default} to give a default)`
            : `environment variable ${name} is not set (set it, or give the key's _file form: a file holding the secret)`,
        );
    }
    changed = true;
    i = close + 1;
  }
  return { value, changed, errors };
}

/**
 * Expands every scalar string value of the document in place. A value that was a reference and
 * lands on a key that takes a number (or boolean) but no string is converted, so that
 * `port: ${PORT}` works; a literal `"9464"` the operator quoted stays a string and fails validation.
 */
export function interpolateDocument(
  doc: Document,
  lines: LineCounter,
  env: Env,
  schema: z.core.$ZodType,
  opts: {
    unresolvedSecrets?: "error" | "placeholder" | "warn";
    /** With `warn`: each secret (or credential id) left unresolved, named. */
    warnings?: ConfigProblem[];
  } = {},
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const visit = (node: unknown, path: PropertyKey[]): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = keyText(pair.key);
        if (key !== undefined) visit(pair.value, [...path, key]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => visit(item, [...path, index]));
    } else if (isScalar(node) && typeof node.value === "string") {
      const expanded = expandString(node.value, env, !isSecretPath(path));
      // `status` needs no secret (contract): a secret (or a credential's id) it cannot resolve
      // leaves a placeholder. An empty value counts as unresolved: `PLATFORM_CLIENT_SECRET=` is how
      // an operator (or a compose file's `KEY=`) leaves a variable unset, and the commands that use
      // the secret still refuse it ("must not be empty").
      const unresolved = expanded.errors.length > 0 || expanded.value === "";
      const start = node.range?.[0];
      const line = start === undefined ? null : lines.linePos(start).line;
      const mode = opts.unresolvedSecrets ?? "error";
      const placeholder = mode === "error" ? undefined : placeholderFor(path);
      if (placeholder !== undefined && unresolved) {
        if (mode === "warn")
          opts.warnings?.push({
            path: formatPath(path),
            line,
            message: unresolvedWarning(node.value, expanded),
          });
        node.value = placeholder;
        return;
      }
      for (const message of expanded.errors) problems.push({ path: formatPath(path), line, message });
      if (expanded.changed && expanded.errors.length === 0) node.value = typed(expanded.value, path, schema);
    }
  };
  visit(doc.contents, []);
  return problems;
}

/** The commands a secret (or a credential's id) stops when it is missing, and those it does not. */
export const NEEDS_SECRETS = "sync, run, reconcile and check need it; status, retry and rewind do not";

function unresolvedWarning(text: string, expanded: Expansion): string {
  const name = /\$\{([A-Za-z_][A-Za-z0-9_]*)/.exec(text)?.[1];
  if (name === undefined) return `the value is empty: ${NEEDS_SECRETS}`;
  return `environment variable ${name} ${expanded.errors.length === 0 ? "is empty" : "is not set"}: ${NEEDS_SECRETS}`;
}

function typed(
  value: string,
  path: readonly PropertyKey[],
  schema: z.core.$ZodType,
): string | number | boolean {
  if (accepts(schema, path, "string")) return value;
  if (/^-?\d+(\.\d+)?$/.test(value.trim()) && accepts(schema, path, "number")) return Number(value.trim());
  if ((value === "true" || value === "false") && accepts(schema, path, "boolean")) return value === "true";
  return value;
}
