# syntax=docker/dockerfile:1
# Core Portal image: a static binary on a distroless base, run as a non-root
# user, data in the volume /data. Build: docker build -t coreportal .
# The version stamped into the binary comes from the build arguments.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=0.0.0-dev
ARG COMMIT=unknown
ARG BUILD_DATE=unknown
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.buildDate=${BUILD_DATE}" \
      -o /out/coreportal ./cmd/coreportal \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/coreportal /usr/local/bin/coreportal
COPY --from=build --chown=65532:65532 /out/data /data
ENV CORE_ADDR=:8080 \
    CORE_DATA_DIR=/data \
    CORE_LOG_FORMAT=json
USER 65532:65532
VOLUME ["/data"]
EXPOSE 8080
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["/usr/local/bin/coreportal", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/coreportal"]
CMD ["serve"]
