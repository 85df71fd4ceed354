// The CLI as shipped: the modules tsc built from src/cli/entry.ts, bundled into dist/cli.js and
// dist/chunks/ (one chunk per command and what they share, as main.ts loads them on demand).
// Node's ESM loader resolved and evaluated 260 files for `status` and 440 for `sync` at every
// start, zod's 60 locales among them; bundled, `status` and an idle `sync` at 50,000 threats
// take about three quarters of the CPU they did (docs/benchmarks-history.md, "Start-up"). The rest of dist/
// stays as tsc wrote it: the tests, the bench and the demo import its modules.
//
// Left out of the bundle, loaded from node_modules as before: pino and its kin (its transports
// start worker threads that load its files by path), prom-client (`run` only) and undici (the
// platform transport imports it on its first request, so that `status`, `config` and `retry`
// never load it).
// Usage: node scripts/bundle-cli.mjs (after tsc; `npm run build` runs both).
import { rmSync } from "node:fs";
import { build } from "rolldown";

const EXTERNAL = [/^node:/, /^pino(-.*)?$/, "thread-stream", "sonic-boom", "prom-client", "undici"];

rmSync("dist/chunks", { recursive: true, force: true });
await build({
  input: { cli: "dist/cli/entry.js" },
  platform: "node",
  external: EXTERNAL,
  logLevel: "warn",
  output: {
    dir: "dist",
    format: "esm",
    entryFileNames: "[name].js",
    chunkFileNames: "chunks/[name]-[hash].js",
  },
});
