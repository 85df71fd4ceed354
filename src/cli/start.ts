import { applyCompileCache } from "./compile-cache.js";
import { applyHeapPolicy } from "./heap-policy.js";
import { applyWasmTiering } from "./wasm-tiering.js";
import { ignoreClosedReader } from "./stdout-closed.js";

// All before any command module is loaded: the cache serves every module imported after it.
applyCompileCache(process.env);
applyHeapPolicy(process.env);
applyWasmTiering(process.env);
ignoreClosedReader(process.stdout);
const { main } = await import("./main.js");
process.exitCode = await main(process.argv.slice(2));
