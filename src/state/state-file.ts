import { readFile } from "node:fs/promises";
import type { z } from "zod";
import { StateError, errnoCode } from "./errors.js";
import { migrate } from "./migrations.js";
import { State } from "./schema.js";

/** How a state file that cannot be used should be handled: never overwritten, never deleted. */
const LEFT_UNTOUCHED =
  "it was left untouched: restore it from a backup, or move it aside and run `threatbridge reconcile` to rebuild the mapping";

/** At most this many schema problems are listed in a message (a large file may have thousands). */
const MAX_ISSUES = 5;

function describeIssues(error: z.ZodError): string {
  const listed = error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const at = issue.path.length === 0 ? "(root)" : issue.path.map(String).join(".");
    return `${at}: ${issue.message}`;
  });
  const more = error.issues.length - listed.length;
  return listed.join("; ") + (more > 0 ? `; and ${more} more` : "");
}

/** Parses the text of a state file: JSON, then migrations, then the `State` schema. */
export function parseStateText(path: string, text: string): State {
  const source = `state file ${path}`;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new StateError("state_corrupt", `${source} is not valid JSON (${detail}); ${LEFT_UNTOUCHED}`, {
      cause: err,
      file: path,
    });
  }
  let migrated: unknown;
  try {
    migrated = migrate(raw, source);
  } catch (err) {
    if (err instanceof StateError) {
      const message = err.code === "state_too_new" ? err.message : `${err.message}; ${LEFT_UNTOUCHED}`;
      throw new StateError(err.code, message, { cause: err, file: path });
    }
    throw err;
  }
  const parsed = State.safeParse(migrated);
  if (!parsed.success) {
    throw new StateError(
      "state_corrupt",
      `${source} is not valid: ${describeIssues(parsed.error)}; ${LEFT_UNTOUCHED}`,
      {
        cause: parsed.error,
        file: path,
      },
    );
  }
  return parsed.data;
}

/** Reads the state file at `path`; null when it does not exist. Never writes, never locks. */
export async function readStateFile(path: string): Promise<State | null> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return null;
    const detail = err instanceof Error ? err.message : String(err);
    throw new StateError(
      "state_unreadable",
      `cannot read state file ${path} (${detail}); check its permissions`,
      {
        cause: err,
        file: path,
      },
    );
  }
  return parseStateText(path, text);
}
