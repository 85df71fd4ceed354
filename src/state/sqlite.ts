import { createRequire } from "node:module";
import type * as NodeSqlite from "node:sqlite";

type Sqlite = typeof NodeSqlite;
export type Database = NodeSqlite.DatabaseSync;
export type Statement = NodeSqlite.StatementSync;

let loaded: Sqlite | undefined;

/**
 * `node:sqlite`, loaded on first use. This is the only place the project loads it.
 *
 * Node 22 prints an ExperimentalWarning ("SQLite is an experimental feature…") when it loads; the
 * CLI's stderr carries JSON log lines only, so `process.emitWarning` is wrapped for the load alone
 * and drops exactly that one (`emitWarning("SQLite…", "ExperimentalWarning")`, as Node 22 emits
 * it); any other warning, then or later, is emitted as before.
 */
export function sqlite(): Sqlite {
  if (loaded !== undefined) return loaded;
  const emit = process.emitWarning;
  process.emitWarning = function filtered(this: NodeJS.Process, warning, ...rest: unknown[]): void {
    if (rest[0] === "ExperimentalWarning" && typeof warning === "string" && warning.startsWith("SQLite"))
      return;
    (emit as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    loaded = createRequire(import.meta.url)("node:sqlite") as Sqlite;
  } finally {
    process.emitWarning = emit;
  }
  return loaded;
}
