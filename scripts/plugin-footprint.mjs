#!/usr/bin/env node
// What each plug-in feature costs the rest of the code as it stands, from static imports:
// `node scripts/plugin-footprint.mjs [feature ...]`. A feature is a folder of src/sync/features/; its
// own modules are that folder and, where there is one, its config section `src/config/<name>.ts`.
// For each it lists the src files outside those that import them (the registry line, the config
// schema's line, ...) and which of those are core files, the ones that must never name a feature:
// intake, planner, drain, cycle, runner, context, records, state schema. Prints JSON.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

const SRC = resolve("src");
const FEATURES = join(SRC, "sync", "features");
const CORE = [
  "sync/intake/",
  "sync/plan/",
  "sync/run/",
  "sync/records/",
  "sync/context.ts",
  "sync/actions/index.ts",
  "sync/actions/types.ts",
];

/** Every .ts file under `dir`. */
function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']/g;

/** The src files a file imports, type-only imports included. */
function importsOf(file) {
  const out = new Set();
  for (const match of readFileSync(file, "utf8").matchAll(IMPORT))
    out.add(resolve(dirname(file), match[1].replace(/\.js$/, ".ts")));
  return out;
}

const all = files(SRC);
const imports = new Map(all.map((file) => [file, importsOf(file)]));
const rel = (file) => relative(SRC, file).split(sep).join("/");
const isCore = (file) => CORE.some((prefix) => rel(file).startsWith(prefix));

const asked = process.argv.slice(2);
const names = readdirSync(FEATURES).filter(
  (name) => statSync(join(FEATURES, name)).isDirectory() && (asked.length === 0 || asked.includes(name)),
);

const report = names.map((name) => {
  const folder = join(FEATURES, name) + sep;
  const configModule = join(SRC, "config", `${name}.ts`);
  const own = (file) => file.startsWith(folder) || file === configModule;
  const importers = all.filter((file) => !own(file) && [...imports.get(file)].some(own)).map(rel);
  return {
    feature: name,
    own: [`src/${rel(folder)}`, ...(existsSync(configModule) ? [`src/${rel(configModule)}`] : [])],
    outside: importers.map((file) => `src/${file}`),
    core: importers.filter((file) => isCore(join(SRC, file))).map((file) => `src/${file}`),
  };
});
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
