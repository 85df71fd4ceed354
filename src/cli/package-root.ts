import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The directory of threatbridge's package.json, found from the running module upwards: the same
 * answer from a checkout (src/cli, dist/cli), the bundle (dist/chunks), an installed package
 * (node_modules/threatbridge) and the container image (/app). Undefined when none is found.
 */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string | undefined {
  let dir = dirname(from);
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && nameOf(manifest) === "threatbridge") return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function nameOf(manifest: string): unknown {
  try {
    const parsed: unknown = JSON.parse(readFileSync(manifest, "utf8"));
    return typeof parsed === "object" && parsed !== null && "name" in parsed ? parsed.name : undefined;
  } catch {
    return undefined;
  }
}

/** The documented example config the package ships (`files` in package.json: config/). */
export function shippedConfigPath(root: string | undefined = packageRoot()): string | undefined {
  if (root === undefined) return undefined;
  const path = join(root, "config", "threatbridge.yaml");
  return existsSync(path) ? path : undefined;
}
