import nodeModule from "node:module";

/**
 * Node's module compile cache (Node 22.1+): V8's compiled code for every module the CLI loads is
 * kept on disk, so a scheduled `sync`, `status` or `check` does not compile the same few hundred
 * files again at every start. Node 20 has no such cache; there the call is absent and skipped.
 * The cache is an optimisation only: a directory that cannot be written leaves start-up as it was
 * (Node reports it in the answer, it never throws).
 *
 * THREATBRIDGE_COMPILE_CACHE names the directory (the container points it at its data volume, so
 * the cache outlives a restart); `off` (or `0`) turns it off; unset, Node's own choice applies
 * (NODE_COMPILE_CACHE, else `node-compile-cache` in the temporary directory).
 */
export type EnableCompileCache = (dir?: string) => { status: number; directory?: string; message?: string };

function compileCacheDir(env: NodeJS.ProcessEnv): string | undefined | null {
  const raw = env["THREATBRIDGE_COMPILE_CACHE"]?.trim();
  if (raw === undefined || raw === "") return undefined;
  if (raw === "off" || raw === "0") return null;
  return raw;
}

/** Turns the cache on for this process, before the commands are loaded; answers the directory used. */
export function applyCompileCache(
  env: NodeJS.ProcessEnv,
  enable: EnableCompileCache | null = (nodeModule as { enableCompileCache?: EnableCompileCache })
    .enableCompileCache ?? null,
): string | null {
  const dir = compileCacheDir(env);
  if (dir === null || enable === null) return null;
  try {
    return enable(dir).directory ?? null;
  } catch {
    // Not worth failing a command over: the modules load as they would without a cache.
    return null;
  }
}
