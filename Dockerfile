# syntax=docker/dockerfile:1
#
# threatbridge as a container: `docker build -t threatbridge .`, then e.g.
#   docker run -d --name threatbridge -p 9464:9464 -v threatbridge-data:/app/data \
#     -e PLATFORM_BASE_URL=… -e PLATFORM_TOKEN_URL=… -e PLATFORM_CLIENT_ID=… -e PLATFORM_CLIENT_SECRET=… \
#     -e GITHUB_TOKEN=… -e GITHUB_REPOSITORY=owner/name threatbridge
# The default command is the daemon (`run`); any other command works too
# (`docker run --rm threatbridge demo`, `… config validate`, `… status`).
# Mount your own config at /app/config/threatbridge.yaml, or point THREATBRIDGE_CONFIG at one.
# Compose and Kubernetes material: deploy/; operators' guide: docs/operations.md.
# With podman, build with `--format docker` (the OCI format drops the HEALTHCHECK);
# scripts/container-smoke.sh builds and runs this image in CI on a local Node base (NODE_IMAGE).

# One Node major for both stages; Node 24 is an active LTS line.
ARG NODE_IMAGE=node:24-bookworm-slim
# What the image says it is (OCI labels, and `threatbridge_build_info` on /metrics): the release
# workflow passes the tag's version and the commit; a local build says package.json's version
# (test/container/dockerfile.test.ts keeps the default equal to it) and an unknown revision.
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG SOURCE=https://github.com/threatbridge/threatbridge

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Dependencies first: this layer is reused as long as the lock file does not change.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/bundle-cli.mjs ./scripts/
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
ARG VERSION
ARG REVISION
ARG SOURCE
LABEL org.opencontainers.image.title="threatbridge" \
      org.opencontainers.image.description="Turns a security platform's threats into GitHub issues, and GitHub verdicts back into the platform." \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="Apache-2.0"
ENV NODE_ENV=production
# The commit the image was built from, for `threatbridge_build_info{revision}` on /metrics.
ENV THREATBRIDGE_REVISION=${REVISION}
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only, no install scripts; the npm cache is not kept in the image.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY config ./config
COPY LICENSE ./
# The state (config `state.path`, default ./data/state.json) lives on a volume owned by `node`.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME /app/data
# /healthz, /readyz and /metrics (config `health.port`).
EXPOSE 9464
ENV THREATBRIDGE_HEALTH_PORT=9464
# Node keeps its compiled modules on the data volume, so that a restarted container starts as fast
# as a warm one (src/cli/compile-cache.ts).
ENV THREATBRIDGE_COMPILE_CACHE=/app/data/compile-cache
# Slim images have no curl: Node itself asks /healthz (set THREATBRIDGE_HEALTH_PORT if health.port differs).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.THREATBRIDGE_HEALTH_PORT||9464)+'/healthz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The CLI runs inside this image: the demo's last words name `docker run`/`docker exec` commands.
ENV THREATBRIDGE_IMAGE=1
# Exec form: node is PID 1 and gets `docker stop`'s SIGTERM itself (run: finish the write in
# flight, save the state, exit 0).
ENTRYPOINT ["node", "/app/dist/cli.js"]
CMD ["run"]
