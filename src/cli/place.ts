import { existsSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import type { Place } from "../demo/index.js";
import type { Env } from "./io.js";

/** Set by the Dockerfile in the image it builds: commands there run inside that container. */
export const IMAGE_VARIABLE = "THREATBRIDGE_IMAGE";

export interface PlaceFacts {
  /** The package's root (./package-root.ts); undefined when it cannot be found. */
  root: string | undefined;
  /** The script node was started with (`process.argv[1]`): the bin link when installed. */
  script: string | undefined;
  cwd: string;
  env: Env;
}

/**
 * Where this CLI runs, from facts a process has: the image says so in its environment; a checkout
 * has its sources beside dist/ (a package ships dist/ and config/ only); anything else is an
 * installed package, run through `npx` when started from a node_modules/.bin link.
 */
export function placeOf(facts: PlaceFacts): Place {
  if (facts.env[IMAGE_VARIABLE] === "1") return { kind: "image" };
  const root = facts.root;
  if (root !== undefined && existsSync(join(root, "src", "cli")) && existsSync(join(root, "tsconfig.json")))
    return { kind: "checkout", root, here: resolve(facts.cwd) === resolve(root) };
  const viaNpx = facts.script?.includes(`${sep}node_modules${sep}.bin${sep}`) === true;
  return { kind: "installed", command: viaNpx ? "npx threatbridge" : "threatbridge" };
}
