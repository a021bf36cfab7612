# syntax=docker/dockerfile:1
# tally's container image. Build: docker build -t tally .
# Run:   docker run -v ./tally.yaml:/etc/tally/config.yaml:ro -v tally-state:/var/lib/tally -p 10464:10464 tally
# docs/operations.md describes the image; scripts/docker-repro.sh replays these steps
# without Docker (CI has no Docker engine) and runs this HEALTHCHECK.
#
# Both stages start from one base image pinned by digest, so a rebuild gets the same
# Node and Debian until the pin is bumped on purpose (docs/operations.md#base-image says
# how); test/deploy/dockerfile.test.ts fails on a FROM without a digest.

# --- build: compile TypeScript -------------------------------------------------------------
FROM node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# --- runtime: production dependencies, the compiled code and the JSON Schema ----------------
FROM node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d AS runtime
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="tally" \
      org.opencontainers.image.description="Watches organizations on a live audio streaming platform through its read-only API: snapshots, change events, Prometheus metrics and alerts." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.base.name="docker.io/library/node:24-bookworm-slim"

# tini is PID 1: it forwards SIGTERM/SIGINT/SIGHUP to node and reaps zombies, so
# `docker stop` is a clean stop (exit 0) and `docker kill -s HUP` reloads the config.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# The npm cache lives in a build cache mount, never in a layer.
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --no-audit --no-fund
COPY --from=build /src/dist ./dist
COPY schema ./schema
# tally needs node only: npm, npx and corepack (and their many dependencies) leave the
# runtime image, with their vulnerabilities and a way to fetch code at run time.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
 && rm -f /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack

# The state directory belongs to the unprivileged user tally runs as; mount a volume there
# so snapshots, the event log and the outbox survive. TALLY_STATE_DIR makes it the state
# directory of any config that does not set state.dir; /app stays root-owned and read-only.
RUN groupadd --system --gid 10001 tally \
 && useradd --system --uid 10001 --gid tally --home-dir /var/lib/tally --shell /usr/sbin/nologin tally \
 && mkdir -p /var/lib/tally /etc/tally \
 && chown tally:tally /var/lib/tally \
 && chmod 0700 /var/lib/tally
VOLUME ["/var/lib/tally"]

ENV TALLY_CONFIG=/etc/tally/config.yaml \
    TALLY_STATE_DIR=/var/lib/tally \
    TALLY_PORT=10464
# glibc gives each thread that allocates (libuv's pool: file writes, gzip; V8's helper
# threads) an arena of its own, each keeping freed memory; two arenas hold tally's
# resident memory some 10 MiB lower at 5000 channels. Fixed mmap and trim thresholds keep
# every block over 128 KiB in a map of its own, given back when freed, instead of glibc
# raising its threshold after the first large free and leaving such blocks as holes in
# its heap: 6 - 11 MiB lower (docs/performance.md, Footprint).
ENV MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=131072 \
    MALLOC_TRIM_THRESHOLD_=131072
USER tally:tally
EXPOSE 10464

# Liveness: /-/healthy answers 200 whenever tally serves HTTP, whatever the upstream does.
# TALLY_PORT must match the port of server.listen.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.TALLY_PORT||10464)+'/-/healthy').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

# A 2 MiB young generation instead of V8's 16 MiB semi-spaces: at 5000 channels RSS falls
# by about 70 MiB at the same CPU (docs/performance.md, footprint).
ENTRYPOINT ["/usr/bin/tini", "--", "node", "--max-semi-space-size=2", "/app/dist/main.js"]
CMD ["run"]
