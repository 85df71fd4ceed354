import { readFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { errnoCode } from "./errors.js";

/** What /proc/<pid>/stat says about a process that is needed to tell it from a reused pid. */
interface ProcStat {
  /** Field 3: R, S, D, Z (zombie), X (dead), … */
  state: string;
  /** Field 22: start time in clock ticks since boot; with the pid, it names one process. */
  startTime: string;
}

/**
 * Parses /proc/<pid>/stat (proc(5)). Field 2 is the command name in parentheses and may itself
 * hold spaces or parentheses, so fields are counted from the last ')'.
 */
export function parseProcStat(text: string): ProcStat | null {
  const close = text.lastIndexOf(")");
  if (close < 0) return null;
  const fields = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // fields[0] is field 3 (state), so field 22 is fields[19].
  const state = fields[0];
  const startTime = fields[19];
  if (state === undefined || startTime === undefined || !/^\d+$/.test(startTime)) return null;
  return { state, startTime };
}

/** "gone": no such process; "unknown": no procfs or not readable (cannot tell). */
type ProcLookup = ProcStat | "gone" | "unknown";

export async function readProcStat(pid: number): Promise<ProcLookup> {
  try {
    return parseProcStat(await readFile(`/proc/${pid}/stat`, "utf8")) ?? "unknown";
  } catch (err) {
    const code = errnoCode(err);
    return code === "ENOENT" || code === "ESRCH" ? "gone" : "unknown";
  }
}

/** This process's start time (field 22), or null where there is no procfs (macOS, Windows). */
export function ownProcStart(): string | null {
  try {
    return parseProcStat(readFileSync("/proc/self/stat", "utf8"))?.startTime ?? null;
  } catch {
    return null;
  }
}

/** Whether a process with this pid exists (signal 0 only checks; EPERM means it exists). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) !== "ESRCH";
  }
}
