/**
 * The Node versions the CLI runs on: package.json's `engines` (`^22.13.0 || >=24.0.0`). This module
 * imports nothing, so that the entry can ask it before loading anything an older Node cannot load.
 */
export const SUPPORTED_NODE = "Node 22.13+ or 24+";

/** Whether `version` (as `process.versions.node`, "22.13.0") satisfies `^22.13.0 || >=24.0.0`. */
export function isSupportedNode(version: string): boolean {
  const [major = Number.NaN, minor = Number.NaN] = version
    .split(".")
    .map((part) => Number.parseInt(part, 10));
  if (Number.isNaN(major) || Number.isNaN(minor)) return false;
  return major >= 24 || (major === 22 && minor >= 13);
}

/** The one line the CLI prints (and exits 2) on a Node it does not run on; undefined on a good one. */
export function nodeVersionProblem(version: string): string | undefined {
  if (isSupportedNode(version)) return undefined;
  return `threatbridge: needs ${SUPPORTED_NODE}, this is Node ${version}; install Node 22 or 24 (e.g. \`nvm install\` reads .nvmrc), or run the container image, which brings its own`;
}
