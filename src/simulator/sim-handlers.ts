import type { Simulator } from "./controls.js";
import { NewAssetInput, NewThreatInput, ScanInput, ThreatChangesInput } from "./controls.js";
import { SimulatorError } from "./errors.js";
import { FaultSettings } from "./faults.js";
import { parseJson } from "./http-io.js";
import { ProblemError } from "./problems.js";
import { requireUuid, validate, type Handler, type RequestContext } from "./request-params.js";

/** An empty body means `{}` for the control endpoints, so `curl -X POST` works. */
async function jsonOrEmpty(ctx: RequestContext): Promise<unknown> {
  const text = await ctx.body();
  return text.trim() === "" ? {} : parseJson(text);
}

/** Control errors become the API's problems, so tests match on the same `type`s. */
function run<T>(action: () => T): T {
  try {
    return action();
  } catch (error) {
    if (error instanceof SimulatorError && error.code === "not_found") {
      throw new ProblemError("resource/not-found", error.message, { cause: error });
    }
    if (error instanceof SimulatorError)
      throw new ProblemError("request/validation", error.message, { cause: error });
    throw error;
  }
}

/** `/_sim/*`: the contract's control endpoints and the test helpers (no token, no faults). */
export function createSimHandlers(sim: Simulator): Record<string, Handler> {
  return {
    scan: async (ctx) => {
      const body = validate(ScanInput, await jsonOrEmpty(ctx), "scan body");
      return { status: 200, json: sim.scan(body.outcome ?? "random") };
    },
    faults: async (ctx) => {
      const body = validate(FaultSettings, await jsonOrEmpty(ctx), "faults body");
      return { status: 200, json: sim.setFaults(body) };
    },
    state: () => ({ status: 200, json: sim.state() }),
    addThreat: async (ctx) => {
      const body = validate(NewThreatInput, await jsonOrEmpty(ctx), "new threat");
      return { status: 201, json: run(() => sim.addThreat(body)) };
    },
    addAsset: async (ctx) => {
      const body = validate(NewAssetInput, await jsonOrEmpty(ctx), "new asset");
      return { status: 201, json: run(() => sim.addAsset(body)) };
    },
    getThreat: (ctx) => {
      const id = requireUuid(ctx.params[0], "id");
      const threat = sim.getThreat(id);
      if (threat === null) throw new ProblemError("resource/not-found", `no threat ${id}`);
      return { status: 200, json: threat };
    },
    updateThreat: async (ctx) => {
      const id = requireUuid(ctx.params[0], "id");
      const body = validate(ThreatChangesInput, await jsonOrEmpty(ctx), "threat changes");
      return { status: 200, json: run(() => sim.updateThreat(id, body)) };
    },
    removeAsset: (ctx) => ({
      status: 200,
      json: run(() => sim.removeAsset(requireUuid(ctx.params[0], "id"))),
    }),
    restoreAsset: (ctx) => ({
      status: 200,
      json: run(() => sim.restoreAsset(requireUuid(ctx.params[0], "id"))),
    }),
    settle: () => {
      sim.settle();
      return { status: 204 };
    },
    revokeTokens: () => {
      sim.revokeTokens();
      return { status: 204 };
    },
  };
}
