# Ripple's container image: the compiled build (dist/, see scripts/build.mjs) on Node.js 20, running as a non-root
# user and writing nothing outside mounted volumes, so it runs with a read-only root filesystem. The build stage
# compiles better-sqlite3's native addon and bundles the CLI; the final stage has no sources, compilers or npm cache.
#   docker build -t ripple .
#   docker run --read-only ripple --version
# Default command: the control plane in a management cluster (in-cluster config, leader election, metrics on :8080).

FROM node:20-bookworm-slim AS build
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# better-sqlite3 compiles from source (no prebuilt download).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
COPY scripts/ scripts/
COPY bin/ bin/
COPY src/ src/
# npm ci runs the `prepare` script: scripts/build.mjs writes dist/.
RUN npm ci --no-audit --no-fund \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm cache clean --force

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules/ node_modules/
COPY --from=build /src/dist/ dist/
COPY --from=build /src/bin/ bin/
# The seed documents `ripple up --demo` applies.
COPY testdata/seeds/ testdata/seeds/
# Ripple's own chart: `ripple manifests all` renders it.
COPY deploy/helm/ripple/ deploy/helm/ripple/
# 65532: the conventional "nonroot" user of distroless images; no home directory is needed.
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["node", "/app/bin/ripple.js"]
CMD ["manager", "--leader-elect", "--metrics-port", "8080", "--metrics-address", "0.0.0.0"]
