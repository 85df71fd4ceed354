#!/usr/bin/env node
import { applyCompileCache } from "./compile-cache.js";
import { applyHeapPolicy } from "./heap-policy.js";

// Both before any command module is loaded: the cache serves every module imported after it.
applyCompileCache(process.env);
applyHeapPolicy(process.env);
const { main } = await import("./main.js");
process.exitCode = await main(process.argv.slice(2));
