# The Portcullis image, built from the repository root:
#   docker build -t portcullis .
# Two stages: "build" installs every dependency, compiles the TypeScript and the login UI, then
# prunes node_modules to the production dependencies; the final stage copies only what runs
# (package.json, bin/, dist/, those node_modules) and runs as the unprivileged "node" user.
# .dockerignore keeps node_modules, dist, .git, data, secrets and *.env out of the build context.
# No Docker engine runs in our CI: scripts/docker-free-build.js performs these same steps in a temp
# directory, starts the result and runs the HEALTHCHECK command against it; test/unit/dockerfile.test.ts
# checks the rules this file must keep (see docs/operations.md).
#
# The Node major is the current LTS, the one CI runs the unit and contract suites on as well
# (scripts/ci-node-lts.sh, run by .ci/run, reads it from this line).
ARG NODE_IMAGE=node:26-trixie-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles itself when no prebuilt binary fits this Node: python3, make and g++.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The dependencies first, so this layer is reused while only the code changes. npm ci's prepare
# step finds no sources yet and leaves the build to the step below.
COPY package.json package-lock.json ./
COPY scripts/prepare.js scripts/build-ui.js scripts/
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY bin bin
COPY src src
COPY ui ui
# Build, then drop the dev dependencies (TypeScript, esbuild, jest...) from node_modules. The
# empty data/ becomes the state directory, owned by the runtime user in the final stage.
RUN npm run build \
    && npm prune --omit=dev \
    && mkdir -p data

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/bin bin
COPY --from=build /app/dist dist
# Without REDIS_URL or DATABASE_URL the state (logouts, locks, used TOTP codes) lives in ./data,
# the default DATA_DIR: mount a volume there. Only that directory is writable by the gateway.
COPY --from=build --chown=node:node /app/data data
VOLUME ["/app/data"]
USER node
# 3000: login pages and browser API. Set FORWARD_AUTH_PORT (3001 in the examples) and METRICS_PORT
# to open the internal listeners; publish neither.
EXPOSE 3000
# Liveness, with node itself (the image has no curl): GET /api/healthcheck on PORT (default 3000)
# answers 200 while the process answers. Readiness for a load balancer is /api/ready.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/healthcheck').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The gateway runs as PID 1 with no shell or child in between: docker stop's SIGTERM reaches its
# own handler, which finishes the requests in flight (SHUTDOWN_TIMEOUT, default 10 s) and exits 0.
# Give docker stop -t / compose's stop_grace_period more than SHUTDOWN_TIMEOUT.
CMD ["node", "bin/portcullis.js"]
