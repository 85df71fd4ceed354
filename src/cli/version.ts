import { readFileSync } from "node:fs";

/**
 * The version in package.json, as `--version` prints it and `/metrics` labels the build. Looked
 * for one and two folders up: this module runs from dist/cli/ (tsc's output, the tests) and from
 * a chunk in dist/chunks/ (the bundled CLI), both two levels below the package's root; one level
 * up covers a bundle written straight into dist/. The first package.json named threatbridge wins.
 */
export function version(): string {
  for (const relative of ["../../package.json", "../package.json"]) {
    try {
      const pkg: unknown = JSON.parse(readFileSync(new URL(relative, import.meta.url), "utf8"));
      if (
        typeof pkg === "object" &&
        pkg !== null &&
        "name" in pkg &&
        pkg.name === "threatbridge" &&
        "version" in pkg &&
        typeof pkg.version === "string"
      ) {
        return pkg.version;
      }
    } catch {
      // Not there, or not JSON: try the next place.
    }
  }
  return "unknown";
}
