// Preloaded into the built CLI (NODE_OPTIONS=--import) by lazy-undici.e2e.test.ts: appends every
// bare module specifier the process resolves, from ESM or require alike, to $MODULE_PROBE_OUT, so
// that a test can tell which packages a command loaded. Node's in-thread hooks (22.15+, 24).
import { appendFileSync } from "node:fs";
import { registerHooks } from "node:module";

const out = process.env.MODULE_PROBE_OUT;
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (out && /^[@a-z]/.test(specifier) && !specifier.startsWith("node:")) {
      appendFileSync(out, `${specifier}\n`);
    }
    return nextResolve(specifier, context);
  },
});
