# svcbase serve in a container (docs/cli.md, "Docker"). The image runs the package as npm publishes
# it (dist/, no sources, no dev dependencies) with the optional peers a server needs.
#   docker build -t svcbase .   then   docker compose up   (compose.yaml: svcbase + PostgreSQL + Redis)

# 1. Build and pack the library.
FROM node:20-bookworm-slim AS build
WORKDIR /src
# better-sqlite3 and @napi-rs/canvas compile from source only when no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm pack --ignore-scripts --pack-destination /tmp && mv /tmp/svcbase-*.tgz /tmp/svcbase.tgz

# 2. Install the packed library and the peers `svcbase serve` uses: SQLite, PostgreSQL, Redis, the
#    QuickJS sandbox for deployed functions, the captcha's canvas, and multipart uploads.
FROM build AS deps
WORKDIR /app
RUN echo '{"name":"svcbase-server","private":true,"type":"module","allowScripts":{"better-sqlite3":true}}' > package.json \
 && npm install --omit=dev --no-audit --no-fund /tmp/svcbase.tgz \
      better-sqlite3@^12.4.1 postgres@^3.4.9 ioredis@^5.11.1 \
      quickjs-emscripten-core@^0.32.0 @jitl/quickjs-wasmfile-release-sync@^0.32.0 \
      @napi-rs/canvas@^0.1.80 busboy@^1.6.0

# 3. The runtime: no compilers, an unprivileged user, data in /data.
FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=deps /app /app
COPY functions /app/functions
RUN mkdir -p /data && chown node:node /data
USER node
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 SVC_DB=/data/svcbase.db SVC_FILES=/data/files
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/health').then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"
# node is PID 1: svcbase serve handles SIGTERM itself (graceful shutdown).
CMD ["node", "node_modules/svcbase/bin/svcbase.mjs", "serve"]
