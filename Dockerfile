# syntax=docker/dockerfile:1
# voe's container images (docs/install.md):
#   docker build --target voe -t voe .           the webhook and voe certs (the host chart)
#   docker build --target voe-node -t voe-node .  with the filesystem tools, for the CSI node plugin
#                                               and voe fsresize (the guest chart)
# Both run `voe` as PID 1's only child: tini forwards SIGTERM/SIGINT to node and reaps the
# processes voe starts (filesystem tools, --workers), so voe's own stop handling runs.
# Linted by test/unit/docker/dockerfile.test.ts; the entrypoint is run outside a container by
# test/integration/docker/entrypoint.test.ts.
ARG NODE_IMAGE=node:24-trixie-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY test ./test
COPY bench ./bench
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE} AS base
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/* \
  && groupadd --gid 65532 voe \
  && useradd --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin voe
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist/src ./dist/src
COPY manifests ./manifests
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/src/cli/main.js"]
CMD ["--help"]

FROM base AS voe-node
RUN apt-get update \
  && apt-get install -y --no-install-recommends e2fsprogs xfsprogs btrfs-progs util-linux mount \
  && rm -rf /var/lib/apt/lists/*
USER 65532:65532

FROM base AS voe
USER 65532:65532
