import type { Agent, Dispatcher } from "undici";

/**
 * The two parts of undici the transport uses (`Agent`, `request`), loaded by path rather than the
 * entry point, which builds everything undici offers. undici has no `exports` map; should a release
 * move them, the entry point is loaded instead: slower, never broken.
 */

export type AgentClass = new (options: ConstructorParameters<typeof Agent>[0]) => Dispatcher;

export interface UndiciParts {
  Agent: AgentClass;
  request(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  /** Which way they were loaded: by their modules' paths, or from undici's entry point. */
  loaded: "parts" | "entry";
}

/** How a module is imported (tests give one that fails, to see the fallback). */
export type Importer = (specifier: string) => Promise<unknown>;

const AGENT_MODULE = "undici/lib/dispatcher/agent.js";
const REQUEST_MODULE = "undici/lib/api/api-request.js";

// The specifier is a value, so that neither the compiler nor the bundler resolves it: the
// modules are CommonJS without type declarations of their own (their types are undici's).
const nativeImport: Importer = (specifier) => import(specifier);

function defaultExport(mod: unknown): unknown {
  return typeof mod === "object" && mod !== null && "default" in mod ? mod.default : undefined;
}

type RequestFunction = (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

export async function loadUndiciParts(importer: Importer = nativeImport): Promise<UndiciParts> {
  try {
    const [agent, api] = await Promise.all([importer(AGENT_MODULE), importer(REQUEST_MODULE)]);
    const Agent = defaultExport(agent);
    const request = defaultExport(api);
    if (typeof Agent === "function" && typeof request === "function") {
      // Checked to be functions above; their signatures are undici's own (types/agent.d.ts,
      // types/api.d.ts), which the compiler cannot see through a path without declarations.
      const agentClass = Agent as AgentClass;
      const requestFn = request as RequestFunction;
      return {
        Agent: agentClass,
        request: (dispatcher, options) => requestFn.call(dispatcher, options),
        loaded: "parts",
      };
    }
  } catch {
    // A release that moved them: the entry point below.
  }
  const undici = await import("undici");
  return {
    Agent: undici.Agent,
    request: (dispatcher, options) => dispatcher.request(options),
    loaded: "entry",
  };
}
