# syntax=docker/dockerfile:1
# Multi-stage: a cgo-free static binary built with the Go toolchain, run as a non-root user
# on a small base that has wget for the health check. Data (database, secrets key, ACME
# cache) lives in the /data volume. docs/operations.md has the docker run line.

FROM golang:1.26-alpine AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# app/ is a directory, so the binary goes to bin/app.
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X wsapi/cli.Version=${VERSION}" -o bin/app .

FROM alpine:3.22
RUN addgroup -S -g 10001 app \
    && adduser -S -D -H -u 10001 -G app -h /data app \
    && mkdir -p /data \
    && chown app:app /data
COPY --from=build /src/bin/app /usr/local/bin/app
USER app:app
WORKDIR /data
# Listen on every interface inside the container; put TLS in front or set http.tls.*.
ENV APP_DB_PATH=/data/app.db \
    APP_HTTP_ADDR=0.0.0.0:8080 \
    APP_LOG_FORMAT=json
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD wget -q -O /dev/null http://127.0.0.1:8080/healthz || exit 1
ENTRYPOINT ["/usr/local/bin/app"]
CMD ["serve"]
