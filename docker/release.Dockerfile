# The release's container image, for linux/amd64 and linux/arm64, from the binaries the release
# workflow already built and smoke-tested (.github/workflows/release.yml): no compiler runs here.
# The build context holds linux-amd64/campaign-mock and linux-arm64/campaign-mock:
#   docker buildx build -f docker/release.Dockerfile --platform linux/amd64,linux/arm64 -t campaign-mock CONTEXT
# Those binaries link only the C library (docs/install.md), so the runtime is distroless: glibc, a
# non-root user (nonroot, uid 65532), no shell, no package manager.
FROM gcr.io/distroless/base-nossl-debian12:nonroot
ARG TARGETARCH
COPY --chmod=755 linux-${TARGETARCH}/campaign-mock /usr/local/bin/campaign-mock
# The state volume, owned by the user the server runs as (a named volume takes this ownership).
COPY --chown=65532:65532 data /data
WORKDIR /data
# The local CA of --tls auto (CAMPAIGN_MOCK_CAROOT) is kept in the volume too, so devices keep trusting it.
ENV CAMPAIGN_MOCK_HOST=0.0.0.0 \
    CAMPAIGN_MOCK_PORT=8080 \
    CAMPAIGN_MOCK_DATA_DIR=/data \
    CAMPAIGN_MOCK_CAROOT=/data/ca
VOLUME ["/data"]
EXPOSE 8080 8443
# `campaign-mock health` asks /_mock/ready on 127.0.0.1:$CAMPAIGN_MOCK_PORT: no curl needed.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD ["campaign-mock", "health"]
ENTRYPOINT ["campaign-mock"]
CMD ["serve"]
