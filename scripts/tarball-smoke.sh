#!/usr/bin/env bash
# The package as a stranger installs it: `npm pack` the project (its `prepack` builds dist/),
# install the tarball into an empty prefix with `npm install -g --prefix`, and run the installed
# `threatbridge --version` (it must print package.json's version), `threatbridge demo` and
# `demo --workflow` and `config validate` of the shipped example config (each must exit 0) from an
# empty directory, on Node MAJOR. The tarball holds no source map and unpacks to at most 2.5 MB.
# Whatever the tarball forgot to ship (a file outside `files`, a devDependency needed at run time)
# fails here, not on a user's machine.
#
# Usage: scripts/tarball-smoke.sh MAJOR     (e.g. 22; .ci/run calls it for each supported major)
# Needs the npm registry (the tarball's dependencies are installed from it, as a user's are).
set -euo pipefail
MAJOR="${1:?usage: scripts/tarball-smoke.sh NODE_MAJOR}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d /tmp/threatbridge-tarball.XXXXXX)"
started=$SECONDS
trap 'rc=$?; rm -rf "$WORK"; [ "$rc" = 0 ] || echo "tarball-smoke: FAILED on Node ${MAJOR} (exit $rc)" >&2; exit "$rc"' EXIT

fail() {
  echo "FAIL - $*" >&2
  exit 1
}
ok() { echo "ok   - $*"; }
# Runs a command with Node MAJOR first on PATH (npm itself then runs on it too).
on_node() { npx -y -p "node@${MAJOR}" -- "$@"; }

node_version="$(on_node node --version)"
expected="$(on_node node -p 'require(process.argv[1]).version' "$ROOT/package.json")"

# ---------------------------------------------------------------- pack
(cd "$ROOT" && on_node npm pack --silent --pack-destination "$WORK" >"$WORK/pack.log" 2>&1) ||
  { tail -n 30 "$WORK/pack.log" >&2; fail "npm pack failed"; }
tarball="$(ls "$WORK"/threatbridge-*.tgz 2>/dev/null | head -n 1)"
[ -n "$tarball" ] || fail "npm pack wrote no threatbridge-*.tgz"
listing="$(tar -tzf "$tarball")"
for file in package/LICENSE package/README.md package/CHANGELOG.md package/SECURITY.md package/dist/cli.js; do
  grep -qx "$file" <<<"$listing" || fail "the tarball lacks ${file#package/}"
done
if grep -q '^package/\(src\|test\|bench\)/' <<<"$listing"; then fail "the tarball ships sources, tests or benchmarks"; fi
if grep -q '\.map$' <<<"$listing"; then fail "the tarball ships source maps"; fi
unpacked="$(tar -xOzf "$tarball" | wc -c)"
[ "$unpacked" -le 2500000 ] || fail "the tarball unpacks to $unpacked bytes, more than 2.5 MB"
ok "packed $(basename "$tarball") ($(du -k "$tarball" | cut -f1) kB, $(wc -l <<<"$listing") files)"

# ---------------------------------------------------------------- install into an empty prefix
prefix="$WORK/prefix"
mkdir -p "$prefix" "$WORK/cwd"
(cd "$WORK/cwd" && on_node npm install -g --prefix "$prefix" --no-audit --no-fund "$tarball" >"$WORK/install.log" 2>&1) ||
  { tail -n 30 "$WORK/install.log" >&2; fail "npm install -g --prefix of the tarball failed on Node $node_version"; }
if grep -q EBADENGINE "$WORK/install.log"; then
  grep EBADENGINE "$WORK/install.log" >&2
  fail "installing the tarball warned EBADENGINE on Node $node_version"
fi
bin="$prefix/bin/threatbridge"
[ -x "$bin" ] || fail "the install put no threatbridge executable in $prefix/bin"
ok "installed into an empty prefix on Node $node_version"

# ---------------------------------------------------------------- run it, from an empty directory
# An empty directory: nothing of the repository (config/, node_modules) can stand in for what the
# tarball lacks.
got="$(cd "$WORK/cwd" && on_node "$bin" --version)" || fail "threatbridge --version exited $?"
[ "$got" = "$expected" ] || fail "threatbridge --version printed '$got', expected '$expected' (package.json)"
ok "threatbridge --version prints $got"
# Bounded: the demo takes seconds; a hang fails the step instead of the CI job's timeout.
if ! (cd "$WORK/cwd" && timeout 180 npx -y -p "node@${MAJOR}" -- "$bin" demo >"$WORK/demo.log" 2>&1); then
  tail -n 30 "$WORK/demo.log" >&2
  fail "threatbridge demo from the installed tarball did not exit 0"
fi
ok "threatbridge demo exits 0 ($(wc -l <"$WORK/demo.log") lines of narration)"
if ! (cd "$WORK/cwd" && timeout 180 npx -y -p "node@${MAJOR}" -- "$bin" demo --workflow >"$WORK/workflow.log" 2>&1); then
  tail -n 30 "$WORK/workflow.log" >&2
  fail "threatbridge demo --workflow from the installed tarball did not exit 0"
fi
ok "threatbridge demo --workflow exits 0"
# The example config the package ships validates as it stands (no network; secrets from the environment).
shipped_config="$prefix/lib/node_modules/threatbridge/config/threatbridge.yaml"
if ! (cd "$WORK/cwd" && PLATFORM_CLIENT_ID=smoke PLATFORM_CLIENT_SECRET=smoke GITHUB_TOKEN=smoke \
  on_node "$bin" config validate -c "$shipped_config" >"$WORK/validate.log" 2>&1); then
  cat "$WORK/validate.log" >&2
  fail "threatbridge config validate of the shipped config/threatbridge.yaml did not exit 0"
fi
ok "threatbridge config validate of the shipped example config exits 0"
echo "tarball-smoke: passed on Node $node_version in $((SECONDS - started)) s"
