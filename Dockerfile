# syntax=docker/dockerfile:1
# One image for both roles; docker-compose.yml picks the entry point (api or worker) and the
# stores (profile postgres: DATABASE_URL; profile eventstore: EVENTSTORE_URL + MONGO_URL).

FROM node:20.19.5-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 (the embedded default, also used by the admin CLI) compiles from source when no
# prebuilt binary can be fetched for this platform.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY scripts scripts
COPY libs libs
COPY apps apps
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20.19.5-bookworm-slim
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=3000
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/scripts ./scripts
# The signing page's HTML, modules, style sheet and font slices, served from the source tree, and
# the domain's pure modules the page bundles in (its field rules: esbuild bundles the page at start,
# signing-page.bundler.ts); test/browser/signing-page-modules.spec.ts checks the list is whole.
COPY --from=build /app/apps/api/assets ./apps/api/assets
COPY --from=build /app/libs/domain/src/document/field-rules.ts ./libs/domain/src/document/field-rules.ts
COPY --from=build /app/libs/domain/src/document/field-input.ts ./libs/domain/src/document/field-input.ts
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
CMD ["node", "-r", "./scripts/register-paths.js", "dist/apps/api/src/main.js"]
