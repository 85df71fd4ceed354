import { readFileSync } from "node:fs";
import { isMap, isScalar, isSeq } from "yaml";
import type { Document, LineCounter } from "yaml";
import { formatPath } from "./errors.js";
import type { ConfigProblem } from "./errors.js";
import { NEEDS_SECRETS, UNRESOLVED_SECRET } from "./interpolate.js";
import { keyText, lineOfPath } from "./yaml-lines.js";

/**
 * Secrets from files (contract, "Configuration"): every secret key (`platform.client_secret`,
 * `github.token`, `github.app.private_key`, `github.webhook.secret` and its `previous_secrets`,
 * one a line) may be given as the same key with `_file` appended,
 * whose content without its trailing newline is the value — Docker and Kubernetes secrets, and a
 * GitHub App's PEM without a multi-line environment variable. Giving both forms of one key is an
 * error. Runs after `${VAR}` interpolation (so `token_file: ${SECRETS_DIR}/github` works) and
 * before validation, which then sees the value under the plain key. A relative path is relative to
 * the working directory, as `state.path` is. Messages name the key and the path, never content.
 */

/** Reads a secret file; tests pass their own. */
export type ReadSecretFile = (path: string) => string;

const readSecretFileSync: ReadSecretFile = (path) => readFileSync(path, "utf8");

const FILE_SUFFIX = "_file";

/**
 * Where each secret key lives (its parent's key path) and whether it holds one secret or a list
 * (one a line in its file). Only there is `<key>_file` read; anywhere else it is left to
 * validation, which reports it as an unknown key on its own line.
 */
const SECRET_HOMES: ReadonlyMap<string, ReadonlyMap<string, "one" | "list">> = new Map([
  ["platform", new Map([["client_secret", "one"]])],
  ["github", new Map([["token", "one"]])],
  ["github.app", new Map([["private_key", "one"]])],
  [
    "github.webhook",
    new Map([
      ["secret", "one"],
      ["previous_secrets", "list"],
    ]),
  ],
]);

export function resolveSecretFiles(
  doc: Document,
  lines: LineCounter,
  readSecret: ReadSecretFile = readSecretFileSync,
  /** When given, the file is not read and the secret takes this value (`status` needs none). */
  placeholder?: string,
  /**
   * When given, a file that cannot be read (or is empty) is named here instead of among the
   * problems, and the secret reads as `UNRESOLVED_SECRET` (`config validate` needs no secret).
   */
  warnings?: ConfigProblem[],
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const visit = (node: unknown, path: PropertyKey[]): void => {
    if (isSeq(node)) {
      node.items.forEach((item, index) => visit(item, [...path, index]));
      return;
    }
    if (!isMap(node)) return;
    for (const pair of [...node.items]) {
      const key = keyText(pair.key);
      if (key === undefined) continue;
      const secretKey = key.endsWith(FILE_SUFFIX) ? key.slice(0, -FILE_SUFFIX.length) : undefined;
      const shape = secretKey === undefined ? undefined : SECRET_HOMES.get(formatPath(path))?.get(secretKey);
      if (secretKey === undefined || shape === undefined) {
        visit(pair.value, [...path, key]);
        continue;
      }
      const filePath = [...path, key];
      const problem = (message: string): ConfigProblem => ({
        path: formatPath(filePath),
        line: lineOfPath(doc, lines, filePath),
        message,
      });
      if (node.has(secretKey)) {
        problems.push(
          problem(`give either ${formatPath([...path, secretKey])} or ${formatPath(filePath)}, not both`),
        );
        continue;
      }
      const file = isScalar(pair.value) ? pair.value.value : undefined;
      if (typeof file !== "string" || file.trim() === "") {
        problems.push(
          problem("must be the path of a file holding the secret, e.g. /run/secrets/github-token"),
        );
        continue;
      }
      if (placeholder !== undefined) {
        node.delete(key);
        node.set(secretKey, shape === "list" ? doc.createNode([placeholder]) : placeholder);
        continue;
      }
      // A secret that cannot be had is named, and reads as a placeholder, so that validation still
      // checks the rest of the file (every problem in one run) without a second message for the key.
      const unavailable = (message: string): void => {
        if (warnings !== undefined) warnings.push(problem(`${message}: ${NEEDS_SECRETS}`));
        else problems.push(problem(message));
        node.delete(key);
        node.set(secretKey, shape === "list" ? doc.createNode([UNRESOLVED_SECRET]) : UNRESOLVED_SECRET);
      };
      let content: string;
      try {
        content = readSecret(file);
      } catch (cause) {
        unavailable(`cannot read the secret file ${file} (${readFailure(cause)})`);
        continue;
      }
      const value = content.replace(/\r?\n$/, "");
      if (shape === "list") {
        // Previous secrets may run out during a rotation: an empty file is an empty list.
        const list = value.split(/\r?\n/).filter((line) => line.trim() !== "");
        node.delete(key);
        node.set(secretKey, doc.createNode(list));
        continue;
      }
      if (value === "") {
        unavailable(`the secret file ${file} is empty`);
        continue;
      }
      node.delete(key);
      node.set(secretKey, value);
    }
  };
  visit(doc.contents, []);
  return problems;
}

function readFailure(cause: unknown): string {
  const code = cause instanceof Error && "code" in cause ? cause.code : undefined;
  if (code === "ENOENT") return "no such file";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "it is a directory";
  return typeof code === "string" ? code : "unreadable";
}
