import { suggest } from "./suggest.js";
import { ANY_JSON } from "./template-scopes.js";

/**
 * Whether every variable a template reads exists in its scope (contract: "a variable ... that
 * does not exist for that template is a config error"). The template's variables come from
 * liquidjs's static analysis, so a branch or a loop body that a sample render would skip is
 * checked too; names the template defines itself (`assign`, `capture`, a `for` loop's item,
 * `forloop`) are not in scope and are left to liquidjs.
 */

/** One variable path as liquidjs's analysis gives it: names, indexes, and nested variables. */
interface UsedVariable {
  segments: ReadonlyArray<string | number | object>;
  location: { row: number; col: number };
}

/** Properties liquid offers on any value (`{{ threat.title.size }}`, `{{ list.first }}`). */
const BUILT_IN = new Set(["size", "first", "last"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function keysOf(value: unknown): string[] {
  return isRecord(value) ? Object.keys(value) : [];
}

/** Every dotted path of the sample, for a suggestion when the name is at the wrong depth. */
function allPaths(value: unknown, prefix: string[] = []): string[][] {
  return keysOf(value).flatMap((key) => {
    const path = [...prefix, key];
    const child = isRecord(value) ? value[key] : undefined;
    return [path, ...(child === ANY_JSON ? [] : allPaths(child, path))];
  });
}

function didYouMean(
  path: readonly string[],
  parent: unknown,
  sample: object,
  aliases: Readonly<Record<string, string>>,
): string {
  const name = path[path.length - 1] ?? "";
  const alias = aliases[path.join(".")];
  if (alias !== undefined) return `; did you mean \`${alias}\`?`;
  const sibling = suggest(name, keysOf(parent));
  if (sibling !== undefined) return `; did you mean \`${[...path.slice(0, -1), sibling].join(".")}\`?`;
  // `{{ title }}` for `{{ threat.title }}`, `{{ group }}` for `{{ group.key }}`: the same name elsewhere.
  const elsewhere = allPaths(sample).filter((p) => p[p.length - 1] === name || p[0] === name);
  const first = elsewhere.find((p) => p.length > 1) ?? elsewhere[0];
  return first === undefined ? "" : `; did you mean \`${first.join(".")}\`?`;
}

/** The problem with one variable, or undefined when the scope has it. */
function checkOne(
  variable: UsedVariable,
  sample: object,
  aliases: Readonly<Record<string, string>>,
): string | undefined {
  let value: unknown = sample;
  const path: string[] = [];
  for (const segment of variable.segments) {
    // A computed key (`threat[key]`) or an index: what it reaches is known only when rendering.
    if (typeof segment !== "string") return undefined;
    if (value === ANY_JSON) return undefined;
    path.push(segment);
    if (isRecord(value) && Object.hasOwn(value, segment)) {
      value = value[segment];
      continue;
    }
    if (BUILT_IN.has(segment) && path.length > 1) return undefined;
    const where = `line ${variable.location.row}, column ${variable.location.col}`;
    const known = keysOf(value);
    const offers =
      path.length === 1
        ? `this template offers ${known.map((k) => `\`${k}\``).join(", ")}`
        : known.length > 0
          ? `\`${path.slice(0, -1).join(".")}\` has ${known.map((k) => `\`${k}\``).join(", ")}`
          : `\`${path.slice(0, -1).join(".")}\` is a plain value`;
    return `unknown variable \`${path.join(".")}\` (template ${where}): ${offers}${didYouMean(path, value, sample, aliases)}`;
  }
  return undefined;
}

/** The first unknown variable of a template, as a message, or undefined when all exist. */
export function unknownVariable(
  globals: Readonly<Record<string, readonly UsedVariable[]>>,
  sample: object,
  aliases: Readonly<Record<string, string>> = {},
): string | undefined {
  for (const uses of Object.values(globals)) {
    for (const variable of uses) {
      const problem = checkOne(variable, sample, aliases);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

/** liquidjs's "undefined filter: upcas, line:1, col:4" with the filter it probably meant. */
export function filterHint(message: string, filters: readonly string[]): string {
  const name = /undefined filter: ([^\s,]+)/.exec(message)?.[1];
  const close = name === undefined ? undefined : suggest(name, filters);
  return close === undefined ? "" : `; did you mean \`${close}\`?`;
}
