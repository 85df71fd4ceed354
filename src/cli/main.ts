import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export function version(): string {
  const pkg: unknown = require("../../package.json");
  if (typeof pkg === "object" && pkg !== null && "version" in pkg && typeof pkg.version === "string") {
    return pkg.version;
  }
  return "unknown";
}

/** Parses argv, runs one command, and answers its exit code (the contract's table). */
export async function main(argv: string[]): Promise<number> {
  if (argv[0] === "--version" || argv[0] === "-v") {
    console.log(version());
    return 0;
  }
  console.error("usage: threatbridge <run|sync|status|config|reconcile|simulate|demo> [options]");
  return 2;
}
