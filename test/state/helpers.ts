import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh temporary directory per test, removed afterwards. */
export async function withTempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "threatbridge-state-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
