import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createAsyncWrites } from "./async-writes.js";
import { createControls, type Simulator } from "./controls.js";
import type { Counters, SimCore } from "./core.js";
import { createCursorCodec } from "./cursors.js";
import { createFaults } from "./faults.js";
import { resolveOptions, type SimulatorOptions } from "./options.js";
import { createRandom } from "./random.js";
import { createRoutes } from "./routes.js";
import { createListener } from "./server.js";
import { SimStore } from "./store.js";
import { handleTokenRequest } from "./token-endpoint.js";
import { createTokenRegistry } from "./tokens.js";

export interface RunningSimulator {
  /** The spec's `{base_url}`; the token endpoint is `url + "/oauth/token"`. */
  url: string;
  /** In-process access to the `/_sim/*` controls and inspection. */
  sim: Simulator;
  close(): Promise<void>;
}

function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

/** Generates the seeded data and serves the platform API, the token endpoint and `/_sim/*`. */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<RunningSimulator> {
  const options = resolveOptions(opts);
  // Separate streams: data, runtime (scans, added threats) and faults do not disturb each other.
  const store = new SimStore(options.clock, createRandom(options.seed));
  store.populate(options.assets, options.threats);
  const tokens = createTokenRegistry(
    [
      { id: options.clientId, secret: options.clientSecret, role: "writer" },
      { id: options.readOnlyClientId, secret: options.readOnlyClientSecret, role: "reader" },
    ],
    options.tokenTtlSeconds,
    options.clock,
  );
  const counters: Counters = { tokenRequests: 0, requests: 0, byRoute: new Map() };
  let baseUrl = options.publicUrl ?? "";
  const core: SimCore = {
    store,
    cursors: createCursorCodec(options.cursorSecret),
    faults: createFaults(createRandom((options.seed ^ 0x5bd1e995) >>> 0)),
    writes: createAsyncWrites(options.asyncWriteDelayMs),
    tokens,
    counters,
    baseUrl: () => baseUrl,
  };
  const sim = createControls(core);
  const routes = createRoutes(core, sim, async (ctx) => {
    const body = await ctx.body();
    return handleTokenRequest(tokens, ctx.headers.authorization, ctx.headers["content-type"], body);
  });
  const server = createServer(createListener(core, routes));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port =
    typeof address === "object" && address !== null ? (address satisfies AddressInfo).port : options.port;
  baseUrl = (options.publicUrl ?? `http://${urlHost(options.host)}:${port}`).replace(/\/+$/, "");
  return {
    url: baseUrl,
    sim,
    close: async () => {
      core.writes.close();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
