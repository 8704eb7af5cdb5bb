# syntax=docker/dockerfile:1
# voe's container images (docs/install.md):
#   docker build --target voe -t voe .           the webhook and voe certs (the host chart)
#   docker build --target voe-node -t voe-node .  with the filesystem tools, for the CSI node plugin
#                                               and voe fsresize (the guest chart)
# Both run `voe` as PID 1's only child: tini forwards SIGTERM/SIGINT to node and reaps the
# processes voe starts (filesystem tools, --workers), so voe's own stop handling runs.
# Linted by test/unit/docker/dockerfile.test.ts; the entrypoint is run outside a container by
# test/integration/docker/entrypoint.test.ts, and test/integration/docker/image-tree.test.ts
# assembles each image's files from the COPY lines below and starts every command the charts run
# from them, as uid 65532.
ARG NODE_IMAGE=node:24-trixie-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# Only what ships: src/ (tsconfig.build.json), not the tests and benchmarks.
RUN npx tsc -p tsconfig.build.json \
  && chmod 0755 dist/src/cli/main.js \
  && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE} AS base
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="voe" \
  org.opencontainers.image.description="volume-online-expansion: safe, observable online volume expansion for Harvester" \
  org.opencontainers.image.source="https://github.com/volume-online-expansion/voe" \
  org.opencontainers.image.url="https://github.com/volume-online-expansion/voe" \
  org.opencontainers.image.documentation="https://github.com/volume-online-expansion/voe/blob/main/docs/install.md" \
  org.opencontainers.image.licenses="Apache-2.0" \
  org.opencontainers.image.vendor="volume-online-expansion" \
  org.opencontainers.image.version="${VERSION}" \
  org.opencontainers.image.revision="${REVISION}"
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
# voe csi loads the CSI services from the proto beside the compiled code's source tree.
COPY --from=build /src/src/guest-csi-bridge/proto/csi.proto ./src/guest-csi-bridge/proto/csi.proto
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
