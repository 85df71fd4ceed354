#!/usr/bin/env node
import { applyCompileCache } from "./cli/compile-cache.js";
import { applyHeapPolicy } from "./cli/heap-policy.js";

// Both before any command module is loaded: the cache serves every module imported after it.
applyCompileCache(process.env);
applyHeapPolicy(process.env);
const { main } = await import("./cli/main.js");
process.exitCode = await main(process.argv.slice(2));
