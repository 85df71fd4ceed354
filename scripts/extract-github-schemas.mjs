#!/usr/bin/env node
// Extracts the few JSON schemas the GitHub stand-in's conformance test needs from GitHub's
// published REST OpenAPI description (npm package @octokit/openapi, ~400 MB unpacked), so the
// repository keeps a small subset instead of the package.
//
// Usage: node scripts/extract-github-schemas.mjs [version] [--from path/to/openapi.tgz]
// The version defaults to the `openapi-version` that the installed @octokit/openapi-types was
// generated from, so the runtime types and the test schemas describe the same API.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "test/github-stand-in/fixtures/github-schemas.json");
const SPEC = "package/generated/api.github.com.json";
/** The answers of the endpoints the stand-in serves, and what they reference. */
const WANTED = [
  "issue",
  "issue-comment",
  "issue-event",
  "issue-event-for-issue",
  "label",
  "milestone",
  "simple-user",
  "rate-limit-overview",
  "installation-token",
  "basic-error",
  "validation-error",
  "projects-v2",
  "projects-v2-field",
  "projects-v2-item-simple",
  "projects-v2-item-with-content",
];

const args = process.argv.slice(2);
const fromIndex = args.indexOf("--from");
const from = fromIndex >= 0 ? args[fromIndex + 1] : undefined;
const typesPkg = JSON.parse(
  readFileSync(join(root, "node_modules/@octokit/openapi-types/package.json"), "utf8"),
);
const version =
  args.find((a, i) => !a.startsWith("--") && i !== fromIndex + 1) ?? typesPkg.octokit["openapi-version"];

const work = mkdtempSync(join(tmpdir(), "gh-openapi-"));
try {
  let tarball = from;
  if (!tarball) {
    const packed = execFileSync("npm", ["pack", `@octokit/openapi@${version}`, "--pack-destination", work], {
      encoding: "utf8",
    });
    tarball = join(work, packed.trim().split("\n").pop());
  }
  execFileSync("tar", ["-xzf", tarball, "-C", work, SPEC]);
  const spec = JSON.parse(readFileSync(join(work, SPEC), "utf8"));
  const all = spec.components.schemas;
  const picked = {};
  const queue = [...WANTED];
  while (queue.length > 0) {
    const name = queue.pop();
    if (picked[name]) continue;
    if (!all[name]) throw new Error(`schema ${name} not in the description`);
    picked[name] = all[name];
    JSON.stringify(all[name], (key, value) => {
      if (key === "$ref") {
        const m = /^#\/components\/schemas\/(.+)$/.exec(value);
        if (!m) throw new Error(`unexpected $ref ${value}`);
        queue.push(m[1]);
      }
      return value;
    });
  }
  const sorted = Object.fromEntries(
    Object.keys(picked)
      .sort()
      .map((k) => [k, picked[k]]),
  );
  const doc = {
    $comment:
      "Subset of GitHub's REST OpenAPI description; regenerate with scripts/extract-github-schemas.mjs",
    source: {
      package: "@octokit/openapi",
      version: spec.info.version,
      file: SPEC.replace("package/", ""),
      openapi: spec.openapi,
    },
    components: { schemas: sorted },
  };
  writeFileSync(out, JSON.stringify(doc, null, 2) + "\n");
  console.log(
    `wrote ${Object.keys(sorted).length} schemas from @octokit/openapi@${spec.info.version} to ${out}`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
