# syntax=docker/dockerfile:1
# michi-chat production image. The build stage runs the same scripts/build.mjs as the e2e tests, so the
# image ships exactly what CI tested: the Next standalone server, the widget bundles and the migrations.

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY --from=deps /app/node_modules ./node_modules
COPY . .
# Type-check and conformance-check the packs of this fork, then build.
RUN npx tsc --noEmit && npm run check:packs && node scripts/build.mjs

FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000 \
    HOSTNAME=0.0.0.0 \
    MICHI_DATA_DIR=/data
RUN groupadd --system --gid 1001 michi && useradd --system --uid 1001 --gid michi --home /app michi \
    && mkdir -p /data && chown michi:michi /data
# Only what the standalone server needs: its traced node_modules, static assets, public files, migrations.
COPY --from=build --chown=michi:michi /app/.next/standalone ./
USER michi
EXPOSE 3000
VOLUME ["/data"]
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
STOPSIGNAL SIGTERM
# The flags of scripts/server-flags.mjs (tests/unit/server-flags.test.ts keeps them equal).
CMD ["node", "--max-semi-space-size=32", "michi-server.mjs"]
