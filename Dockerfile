# syntax=docker/dockerfile:1
# Alexandria as container images (decision 0051). Two targets:
#   docker build -t alexandria .                       the service: `serve` (API replica, worker) and the CLI
#   docker build --target postgres -t alexandria-pg .  PostgreSQL 15 with the alexandria_pg extension
# compose.yaml builds both and runs the scaled-out deployment (README, "Operating").

ARG NODE_IMAGE=node:22-bookworm-slim
ARG POSTGRES_IMAGE=postgres:15-bookworm

# --- build: dependencies, the compiled server and web page, the SQLite ranking extension -------
FROM ${NODE_IMAGE} AS build
# A C toolchain for the native modules that have no prebuilt binary here, and for native/*.c.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-pip make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
# `npm ci` runs the build (prepare: tsc, vite, native/bm25-known-df.c); the dev tools go afterwards.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

# --- models: the embedding model (and the small local chat model), fetched once at build -------
FROM build AS models
# The same cache folder the service reads (src/config/sections/embedding.ts and chat.ts).
ENV XDG_CACHE_HOME=/opt/alexandria/cache
# --optional: without network the image still builds; questions to PDFs then fail until the model
# folder is mounted (ALEXANDRIA_EMBEDDING_MODEL_DIR) or the image is built again with network.
# It also prepares the int8 model of the record-vector workers with pinned Python tools (decision
# 0062), which the image does not need afterwards.
RUN mkdir -p /opt/alexandria/cache && node scripts/setup-model.mjs --optional \
 && rm -rf /opt/alexandria/cache/alexandria/quantize-tools

# --- postgres-build: alexandria_pg compiled with PGXS, as `alexandria db install-extension` does ---
FROM ${POSTGRES_IMAGE} AS postgres-build
RUN apt-get update \
 && apt-get install -y --no-install-recommends make gcc libstdc++6 "postgresql-server-dev-${PG_MAJOR}" \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/bin/node /usr/local/bin/node
COPY --from=build /app /app
RUN node /app/bin/alexandria.js db install-extension \
 && mkdir -p /out/lib /out/extension \
 && cp "$(pg_config --pkglibdir)"/alexandria_pg*.so /out/lib/ \
 && cp "$(pg_config --sharedir)"/extension/alexandria_pg* /out/extension/

# --- postgres: the database image, the extension's files only --------------------------------
FROM ${POSTGRES_IMAGE} AS postgres
COPY --from=postgres-build /out/lib/ /usr/lib/postgresql/${PG_MAJOR}/lib/
COPY --from=postgres-build /out/extension/ /usr/share/postgresql/${PG_MAJOR}/extension/

# --- app (default): the service, as an unprivileged user --------------------------------------
FROM ${NODE_IMAGE} AS app
ENV NODE_ENV=production \
    XDG_CACHE_HOME=/opt/alexandria/cache \
    ALEXANDRIA_DATA_DIR=/var/lib/alexandria \
    ALEXANDRIA_HOST=0.0.0.0 \
    ALEXANDRIA_PORT=8080
RUN groupadd --system alexandria \
 && useradd --system --gid alexandria --home-dir /var/lib/alexandria --shell /usr/sbin/nologin alexandria \
 && mkdir -p /var/lib/alexandria /opt/alexandria/cache \
 && chown alexandria:alexandria /var/lib/alexandria
WORKDIR /app
COPY --from=build --chown=root:root /app /app
COPY --from=models --chown=alexandria:alexandria /opt/alexandria/cache /opt/alexandria/cache
USER alexandria
VOLUME ["/var/lib/alexandria"]
EXPOSE 8080
# Liveness: the process answers (/livez); readiness (/readyz) is for the load balancer.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.ALEXANDRIA_PORT||8080)+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/alexandria.js"]
CMD ["serve"]
