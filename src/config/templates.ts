import { createRequire } from "node:module";
import type * as LiquidJs from "liquidjs";
import type { Context, Liquid } from "liquidjs";
import { filterHint, unknownVariable } from "./template-check.js";
import { TEMPLATE_ALIASES, TEMPLATE_SAMPLES, type TemplateKind } from "./template-scopes.js";

/**
 * liquidjs is loaded when a template is first compiled, not with the config module: a config
 * without templates (the default) and commands such as `status` never pay its load, a large part
 * of a short command's start. Its CommonJS build loads synchronously, as the config's schema
 * checks templates synchronously.
 */
const requireCjs = createRequire(import.meta.url);
let liquidModule: typeof LiquidJs | null = null;
function liquidjs(): typeof LiquidJs {
  if (liquidModule !== null) return liquidModule;
  const loaded: typeof LiquidJs = requireCjs("liquidjs");
  liquidModule = loaded;
  return loaded;
}
/** Liquid templates parsed once at config time (see `compileTemplates`). */
export interface CompiledTemplates {
  /** Renders a template against a scope; throws on render errors and limits. */
  readonly renderTitle: ((scope: object) => string) | null;
  readonly renderBody: ((scope: object) => string) | null;
}

/**
 * User Liquid templates, parsed once at config time and rendered many times, synchronously.
 *
 * Safe by construction: no tag can read a file (`include`, `render` and `layout` are removed, and
 * the loader is an empty in-memory map in any case), unknown filters are errors, only own
 * properties are visible, and parsing and rendering are bounded. Filters that read the clock or
 * a random source are removed (same input, same output), and so are the decoders that could turn
 * pre-escaped platform text back into live text (`url_decode`, `base64_decode`).
 */

/** Where a template comes from: the issue's title or body, or a verdict's status note. */
type TemplatePart = "title" | "body" | "status_note";

export class TemplateError extends Error {
  readonly code = "template_invalid";
  readonly part: TemplatePart;
  constructor(part: TemplatePart, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TemplateError";
    this.part = part;
  }
}

/** Bounds on what a template may cost. `workLimit` and `memoryLimit` count work, not time. */
const TEMPLATE_LIMITS = {
  parseLimit: 100_000,
  /** Tags and outputs rendered in one render, loop iterations included. */
  workLimit: 10_000,
  memoryLimit: 10_000_000,
  // A time bound as a last resort; the counted limits above trip long before it on real input.
  renderLimit: 2_000,
  outputLimit: 1_000_000,
} as const;

const REMOVED_TAGS = ["include", "render", "layout"] as const;
const REMOVED_FILTERS = [
  "date",
  "date_to_xmlschema",
  "date_to_rfc822",
  "date_to_string",
  "date_to_long_string",
  "sample",
  "url_decode",
  "base64_decode",
] as const;

function createEngine(): Liquid {
  const engine = new (liquidjs().Liquid)({
    templates: {},
    relativeReference: false,
    dynamicPartials: false,
    strictFilters: true,
    ownPropertyOnly: true,
    parseLimit: TEMPLATE_LIMITS.parseLimit,
    renderLimit: TEMPLATE_LIMITS.renderLimit,
    memoryLimit: TEMPLATE_LIMITS.memoryLimit,
    // Read only by the date filters, all removed below. Unset, liquidjs asks Intl for the process's
    // locale at each engine's creation, which loads the locale data at every start whose config
    // has a template (an idle `sync` checks its project fields' templates at load).
    locale: "en-US",
  });
  for (const tag of REMOVED_TAGS) delete engine.tags[tag];
  for (const filter of REMOVED_FILTERS) engine.unregisterFilter(filter);
  limitWork(engine, TEMPLATE_LIMITS.workLimit);
  return engine;
}

/**
 * Counts every tag and output rendered, loop bodies included, and stops the render past `limit`.
 * liquidjs 10 bounds loops only by time (`renderLimit`) and by allocations (a loop over an
 * existing array allocates nothing); a count trips at the same point on every machine. Every
 * block tag renders its body through `renderer.renderTemplates`, so wrapping it sees all work.
 */
function limitWork(engine: Liquid, limit: number): void {
  const renderer = engine.renderer;
  const original = renderer.renderTemplates.bind(renderer);
  const used = new WeakMap<Context, number>();
  renderer.renderTemplates = function* (templates, ctx, emitter) {
    const total = (used.get(ctx) ?? 0) + templates.length;
    if (total > limit) throw new Error(`template work limit exceeded (${limit} tags and outputs)`);
    used.set(ctx, total);
    return yield* original(templates, ctx, emitter);
  };
}

function compileOne(
  engine: Liquid,
  part: TemplatePart,
  source: string,
  where: string = `templates.${part}`,
): (scope: object) => string {
  let parsed: ReturnType<Liquid["parse"]>;
  try {
    parsed = engine.parse(source);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TemplateError(part, `${where}: ${reason}`, { cause: error });
  }
  return (scope) => {
    const output: unknown = engine.renderSync(parsed, scope, {
      memoryLimit: TEMPLATE_LIMITS.memoryLimit,
      renderLimit: TEMPLATE_LIMITS.renderLimit,
    });
    const text = typeof output === "string" ? output : String(output);
    if (text.length > TEMPLATE_LIMITS.outputLimit) {
      throw new Error(`output longer than ${TEMPLATE_LIMITS.outputLimit} characters`);
    }
    return text;
  };
}

/**
 * Parses the YAML's `templates` once. Throws `TemplateError` (code `template_invalid`) on syntax
 * errors, unknown tags or filters, and file tags, so a bad template fails `config validate`.
 */
export function compileTemplates(templates: {
  title?: string | undefined;
  body?: string | undefined;
}): CompiledTemplates {
  // No template: no engine, so liquidjs is never loaded (the default config, `status`).
  if (templates.title === undefined && templates.body === undefined)
    return { renderTitle: null, renderBody: null };
  const engine = createEngine();
  return {
    renderTitle: templates.title === undefined ? null : compileOne(engine, "title", templates.title),
    renderBody: templates.body === undefined ? null : compileOne(engine, "body", templates.body),
  };
}

/**
 * A verdict's status note (`verdicts.*.status_note`), a Liquid template like the issue's, in the
 * same sandbox; its scope is the person's change (`issue`, `url`, `login`, `reason`). Throws
 * `TemplateError` when it does not parse.
 */
export function compileNote(source: string): (values: Readonly<Record<string, string>>) => string {
  return compileOne(createEngine(), "status_note", source, "status_note");
}

/**
 * A group's parent issue title (`grouping.title`), in the same sandbox; its scope is
 * `{ group: { key, by, open, total } }`. Throws `TemplateError` when it does not parse.
 */
export function compileGroupTitle(source: string): (scope: object) => string {
  return compileOne(createEngine(), "title", source, "grouping.title");
}

/**
 * A plug-in feature's template (src/sync/features/), in the same sandbox; `where` names its config
 * key in errors. Throws `TemplateError` when it does not parse.
 */
export function compileTemplate(source: string, where: string): (scope: object) => string {
  return compileOne(createEngine(), "body", source, where);
}

/**
 * `checkTemplate` for a plug-in feature's template, against a sample of the scope its feature
 * renders it with (so that the feature's scope needs no kind here). Throws `TemplateError`.
 */
export function checkTemplateWith(sample: object, source: string): void {
  const engine = createEngine();
  let parsed: ReturnType<Liquid["parse"]>;
  try {
    parsed = engine.parse(source);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TemplateError("body", `${reason}${filterHint(reason, Object.keys(engine.filters))}`, {
      cause: error,
    });
  }
  const problem = unknownVariable(engine.analyzeSync(parsed, { partials: false }).globals, sample);
  if (problem !== undefined) throw new TemplateError("body", problem);
}

const PART_OF: Readonly<Record<TemplateKind, TemplatePart>> = {
  issue_title: "title",
  issue_body: "body",
  verdict_note: "status_note",
  acceptance_note: "status_note",
  group_title: "title",
};

/**
 * Checks a template of the config before anything runs (contract: "a variable or filter that
 * does not exist for that template is a config error"): it must parse in the sandbox, use only
 * filters the sandbox has, and read only variables its kind's scope offers (template-scopes.ts),
 * each with a "did you mean" where one fits. Throws `TemplateError`.
 */
export function checkTemplate(kind: TemplateKind, source: string): void {
  const engine = createEngine();
  const part = PART_OF[kind];
  let parsed: ReturnType<Liquid["parse"]>;
  try {
    parsed = engine.parse(source);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TemplateError(part, `${reason}${filterHint(reason, Object.keys(engine.filters))}`, {
      cause: error,
    });
  }
  const globals = engine.analyzeSync(parsed, { partials: false }).globals;
  const problem = unknownVariable(globals, TEMPLATE_SAMPLES[kind], TEMPLATE_ALIASES);
  if (problem !== undefined) throw new TemplateError(part, problem);
}
