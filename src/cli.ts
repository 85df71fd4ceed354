#!/usr/bin/env node
import { applyHeapPolicy } from "./cli/heap-policy.js";

applyHeapPolicy(process.env);
const { main } = await import("./cli/main.js");
process.exitCode = await main(process.argv.slice(2));
