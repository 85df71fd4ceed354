#!/usr/bin/env bash
# The package as a stranger installs it: `npm pack` the project (its `prepack` builds dist/),
# install the tarball into an empty prefix with `npm install -g --prefix`, and run the installed
# `threatbridge --version` (it must print package.json's version), `threatbridge demo` and
# `demo --workflow` and `config validate` of the shipped example config (each must exit 0) from an
# empty directory, then `init`, `config validate` and a `sync` against `simulate --with-github`, on
# Node MAJOR. The tarball holds no source map and unpacks to at most 2.5 MB.
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

# ---------------------------------------------------------------- a user's first run, as the README says
# `init` writes the example config where the commands read it; against `simulate --with-github`
# (on free ports, told to the config by its ${VAR:-default} keys), `config validate` needs no
# secret and `sync` runs a cycle. The simulator is stopped whatever happens.
user="$WORK/user"
mkdir -p "$user"
(cd "$user" && on_node "$bin" init >"$WORK/init.log" 2>&1) || { cat "$WORK/init.log" >&2; fail "threatbridge init did not exit 0"; }
[ -f "$user/config/threatbridge.yaml" ] || fail "threatbridge init wrote no config/threatbridge.yaml"
ok "threatbridge init writes config/threatbridge.yaml"
(cd "$user" && on_node "$bin" config validate >"$WORK/validate-user.log" 2>&1) ||
  { cat "$WORK/validate-user.log" >&2; fail "threatbridge config validate of init's config, with no secret set, did not exit 0"; }
ok "threatbridge config validate of init's config exits 0 with no secret set"
ports="$(on_node node -e 'const n=require("node:net");const a=n.createServer().listen(0,"127.0.0.1",()=>{const b=n.createServer().listen(0,"127.0.0.1",()=>{console.log(a.address().port,b.address().port);a.close();b.close();});});')"
read -r sim_port gh_port <<<"$ports"
# Node itself, not npx, so that the pid stopped at the end is the simulator's own.
node_bin="$(on_node node -p process.execPath)"
"$node_bin" "$bin" simulate --port "$sim_port" --github-port "$gh_port" --with-github --threats 20 >"$WORK/simulate.log" 2>&1 &
sim_pid=$!
trap 'rc=$?; kill "$sim_pid" 2>/dev/null; wait "$sim_pid" 2>/dev/null; rm -rf "$WORK"; [ "$rc" = 0 ] || echo "tarball-smoke: FAILED on Node ${MAJOR} (exit $rc)" >&2; exit "$rc"' EXIT
for _ in $(seq 1 100); do
  grep -q "$gh_port" "$WORK/simulate.log" 2>/dev/null && break
  kill -0 "$sim_pid" 2>/dev/null || { cat "$WORK/simulate.log" >&2; fail "threatbridge simulate --with-github exited"; }
  sleep 0.2
done
grep -q "$gh_port" "$WORK/simulate.log" || { cat "$WORK/simulate.log" >&2; fail "threatbridge simulate --with-github did not start within 20 s"; }
if ! (cd "$user" && PLATFORM_BASE_URL="http://127.0.0.1:$sim_port" PLATFORM_TOKEN_URL="http://127.0.0.1:$sim_port/oauth/token" \
  GITHUB_API_URL="http://127.0.0.1:$gh_port" PLATFORM_CLIENT_ID=threatbridge PLATFORM_CLIENT_SECRET=threatbridge-secret \
  GITHUB_TOKEN=ghp_standin timeout 180 npx -y -p "node@${MAJOR}" -- "$bin" sync >"$WORK/sync.log" 2>&1); then
  tail -n 30 "$WORK/sync.log" >&2
  fail "threatbridge sync with init's config against simulate --with-github did not exit 0"
fi
[ -f "$user/data/state.json" ] || fail "threatbridge sync saved no state at data/state.json"
ok "threatbridge sync with init's config against simulate --with-github exits 0 and saves its state"

echo "tarball-smoke: passed on Node $node_version in $((SECONDS - started)) s"
