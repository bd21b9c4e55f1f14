# syntax=docker/dockerfile:1
#
# The protorest binary in a static, non-root image:
#
#	docker build -t protorest .
#	docker run --rm protorest version
#	docker run --rm -p 8080:8080 protorest serve --upstream host.docker.internal:50051
#
# "protorest version" in the image reports the revision it was built from:
# .dockerignore keeps .git in the build context so that the Go toolchain
# can stamp it (vcs.revision, vcs.time, vcs.modified), and excludes only
# what git ignores too, so that the copy is not seen as modified. A build
# from a git worktree (whose .git is a file, golang/go#58218) or from a
# context without .git reports "(devel)" and an unknown revision.

# Build stage. The golang image (Debian) has git, which the VCS stamp needs.
# It runs on the build machine's platform and cross-compiles to the target
# one (docker buildx build --platform linux/amd64,linux/arm64 .).
FROM --platform=$BUILDPLATFORM golang:1.26-trixie AS build
WORKDIR /src
# The whole repository: the binary is a module of its own
# (cmd/protorest/go.mod), built against the core in this checkout through
# go.work, which names every module of the repository. Modules are
# downloaded by the build into a cache mount, only those it needs.
COPY . .
ARG TARGETOS TARGETARCH
# CGO_ENABLED=0: a static binary, with no libc to need at run time.
# -trimpath: no build-machine paths in the binary. -s -w: no symbol table
# and no DWARF; the build information "protorest version" reads is kept.
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags "-s -w" -o /out/protorest ./cmd/protorest

# Final stage: distroless/static rather than scratch, because it already
# has what scratch would need copied in by hand: CA certificates (for
# --upstream-tls, which verifies against the system roots), /etc/passwd
# with the nonroot user (uid and gid 65532), /tmp, and time zone data. It
# has no shell and no package manager. Pin it by digest
# (gcr.io/distroless/static:nonroot@sha256:...) for reproducible builds.
FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/protorest /protorest
COPY --from=build /src/LICENSE /LICENSE
LABEL org.opencontainers.image.title="protorest" \
      org.opencontainers.image.description="gRPC services as HTTP/JSON APIs, from their google.api.http annotations" \
      org.opencontainers.image.source="https://github.com/protorest/protorest" \
      org.opencontainers.image.licenses="Apache-2.0"
# Numeric, so that Kubernetes' runAsNonRoot can verify it without a
# runAsUser: 65532 is distroless's nonroot user.
USER 65532:65532
# serve reads the container's memory limit (docker run -m 512m: its cgroup's
# memory.max) and sets the Go runtime's to 90% of it, as GOMEMLIMIT would;
# --memory-limit or GOMEMLIMIT in the environment say otherwise.
# serve's default --listen is :8080.
EXPOSE 8080
# No HEALTHCHECK: Docker runs it inside the container, and a distroless
# image has no shell, curl or wget to run it with (protorest has no
# health-check subcommand). Probe from outside instead: Kubernetes
# livenessProbe on /livez and readinessProbe on /readyz (see
# deploy/kubernetes/), or the orchestrator's own HTTP check.
ENTRYPOINT ["/protorest"]
CMD ["serve", "--help"]
