#!/usr/bin/env node
import { nodeVersionProblem } from "./node-version.js";

// The Node version first, before any module that an older Node may fail to load: the rest of the
// CLI is imported only once the version is known to be one it runs on (docs/reference.md, "Node").
const problem = nodeVersionProblem(process.versions.node);
if (problem === undefined) {
  await import("./start.js");
} else {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 2;
}
