// Builds only when the build is older than what it is built from, so that `npm run demo` starts
// the demo at once on a fresh build and still never runs one older than the sources. The build
// (`npm run build`: tsc, then the bundle) writes dist/cli.js last, so its time is the build's.
// Sources: every file under src/, the bundler script, package.json, package-lock.json and the
// tsconfig files.
//
// Usage: node scripts/build-if-stale.mjs            build when stale (exit: the build's)
//        node scripts/build-if-stale.mjs --check    only say "fresh" (exit 0) or "stale: why" (exit 3)
// THREATBRIDGE_ROOT names another project root (tests).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = resolve(process.env.THREATBRIDGE_ROOT ?? join(import.meta.dirname, ".."));
const BUILT = join(root, "dist", "cli.js");
const SOURCES = [
  "src",
  "scripts/bundle-cli.mjs",
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
];

/** The newest file of the sources, with its modification time; null when none exists. */
function newestSource() {
  let newest = null;
  const visit = (path) => {
    if (!existsSync(path)) return;
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path)) visit(join(path, entry));
    } else if (newest === null || stat.mtimeMs > newest.mtimeMs) {
      newest = { path, mtimeMs: stat.mtimeMs };
    }
  };
  for (const source of SOURCES) visit(join(root, source));
  return newest;
}

/** Why the build is stale ("no dist/cli.js yet", "src/x.ts changed since the build"), or null. */
function staleReason() {
  if (!existsSync(BUILT)) return `no ${relative(root, BUILT)} yet`;
  const built = statSync(BUILT).mtimeMs;
  const newest = newestSource();
  return newest !== null && newest.mtimeMs > built
    ? `${relative(root, newest.path)} changed since the build`
    : null;
}

const reason = staleReason();
if (process.argv.includes("--check")) {
  console.log(reason === null ? "fresh" : `stale: ${reason}`);
  process.exit(reason === null ? 0 : 3);
}
if (reason !== null) {
  console.error(`building: ${reason}`);
  // Through the npm that runs this script when there is one, else the npm on PATH.
  const npm = process.env.npm_execpath;
  const build =
    npm !== undefined && npm.endsWith(".js")
      ? spawnSync(process.execPath, [npm, "run", "-s", "build"], { cwd: root, stdio: "inherit" })
      : spawnSync("npm", ["run", "-s", "build"], { cwd: root, stdio: "inherit" });
  process.exit(build.status ?? 1);
}
