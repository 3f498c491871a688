# syntax=docker/dockerfile:1
# One image for every Cairn service and the migrate job; compose picks the entry point with
# `command: node services/<name>/src/main.ts`. Node 24 runs the TypeScript sources directly
# (type stripping), so there is no build step: the image is the sources plus node_modules.

# --- manifests: only what `pnpm install` reads, so the install layer below is rebuilt when a
# manifest or the lockfile changes and not on every source edit. Copying the workspace
# manifests by glob here (instead of one COPY per package) keeps a new package from being
# missed; the layer's cache key is the content copied, so unchanged manifests still hit.
FROM node:24-slim AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && cp --parents package.json pnpm-lock.yaml pnpm-workspace.yaml /manifests/ \
 && for f in contracts/package.json services/*/package.json services/lib/*/package.json test/package.json; do \
      if [ -f "$f" ]; then cp --parents "$f" /manifests/; fi; \
    done

# --- deps: every workspace's dependencies, dev ones included (the test suites run in this
# image too, and type stripping needs nothing else).
FROM node:24-slim AS deps
ENV CI=true
RUN npm install --global --no-audit --no-fund pnpm@10.34.9
WORKDIR /app
COPY --from=manifests /manifests/ ./
RUN pnpm install --frozen-lockfile --prod=false

# --- runtime
FROM node:24-slim AS runtime
ENV NODE_ENV=production
# The Node.js options of every service process (services/lib/service-runtime/src/node-options.ts,
# which a test holds this line to).
ENV NODE_OPTIONS="--max-semi-space-size=16"
WORKDIR /app
# Owned by root and only readable by the service user: a compromised service cannot rewrite
# its own code or dependencies.
COPY --from=deps /app/ ./
COPY . .
USER node
EXPOSE 8080 9464
CMD ["node", "services/gateway/src/main.ts"]
