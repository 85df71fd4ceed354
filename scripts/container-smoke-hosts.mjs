#!/usr/bin/env node
// The GitHub side of scripts/container-smoke.sh: serves the built GitHub stand-in
// (dist/github-stand-in) on 127.0.0.1, and a small control server that answers what the
// stand-in holds, so that the shell script can ask whether the container created issues and
// whether a restart created duplicates. Prints one JSON line `{"github": URL, "control": URL}`
// when both listen, and stops on SIGTERM/SIGINT.
//
// Usage: node scripts/container-smoke-hosts.mjs [--token TOKEN]
// Control: GET /issues?repo=owner/name → {"issues": N, "threats": M, "open": K}
//   (N issues with the connector's marker, M distinct threats among them: N > M is a duplicate).
import { createServer } from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const tokenIndex = process.argv.indexOf("--token");
const token = tokenIndex > 0 ? process.argv[tokenIndex + 1] : "ghp_standin";

const { startGitHubStandIn } = await import(
  pathToFileURL(join(root, "dist", "github-stand-in", "index.js")).href
);
// 0.0.0.0 is not needed: the container shares the host's network namespace (--network=host).
const standIn = await startGitHubStandIn({ host: "127.0.0.1", port: 0, tokens: [token] });

const MARKER = /<!-- threatbridge:threat=([0-9a-f-]+) -->/;
const control = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  if (url.pathname !== "/issues") {
    res.writeHead(404).end();
    return;
  }
  const issues = standIn.issues(url.searchParams.get("repo") ?? "").filter((i) => !i.isPullRequest);
  const marked = issues.filter((i) => MARKER.test(i.body ?? ""));
  const threats = new Set(marked.map((i) => MARKER.exec(i.body ?? "")?.[1]));
  res.writeHead(200, { "content-type": "application/json" }).end(
    JSON.stringify({
      issues: marked.length,
      threats: threats.size,
      open: marked.filter((i) => i.state === "open").length,
    }),
  );
});
await new Promise((r) => control.listen(0, "127.0.0.1", r));
const address = control.address();
const port = typeof address === "object" && address ? address.port : 0;
console.log(JSON.stringify({ github: standIn.url, control: `http://127.0.0.1:${port}` }));

const stop = async () => {
  control.close();
  await standIn.close();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
