#!/usr/bin/env bash
# Assembles a local equivalent of the official slim Node 20 image, for machines that can reach
# Debian's package archive and the npm registry but no container-image registry:
#   Debian's runtime libraries (libc6, libstdc++6, libgcc-s1), ca-certificates, tzdata,
#   dash as /bin/sh and coreutils (the build stage runs npm scripts), a non-root user `node`
#   (uid 1000, as in the official image), the Node binary from the npm registry's
#   `node-linux-<arch>` package and npm from the `npm` package.
# The result is imported as $KB_NODE_BASE_IMAGE (default localhost/kb-node:<node version>);
# docker/Dockerfile builds on it with --build-arg NODE_IMAGE=<that name>. The service images
# themselves carry no shell or npm: their last stage is FROM scratch (see the Dockerfile).
#
# Usage: docker/node-base.sh [engine]      engine: podman (default) or docker
# Needs: apt-get and dpkg (Debian or Ubuntu host of the same architecture), npm, tar.
set -euo pipefail

NODE_VERSION="${NODE_VERSION:-20.20.2}"
NPM_VERSION="${NPM_VERSION:-10.9.4}"
IMAGE="${KB_NODE_BASE_IMAGE:-localhost/kb-node:${NODE_VERSION}}"
ENGINE="${1:-${CONTAINER_ENGINE:-podman}}"

# The binaries' dependency closure is resolved by apt; the data-only packages are taken alone
# (ca-certificates' maintainer scripts would pull in debconf and openssl, which only build
# the bundle: it is built here instead).
BINARY_PACKAGES=(libc6 libstdc++6 libgcc-s1 dash coreutils)
DATA_PACKAGES=(ca-certificates tzdata)

if "$ENGINE" image exists "$IMAGE" 2>/dev/null || "$ENGINE" image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "node-base: $IMAGE is already there"
  exit 0
fi
for tool in apt-get apt-cache dpkg-deb npm tar; do
  command -v "$tool" >/dev/null || { echo "node-base: '$tool' is needed to assemble the base image" >&2; exit 2; }
done

case "$(dpkg --print-architecture)" in
  amd64) NODE_ARCH=x64 ;;
  arm64) NODE_ARCH=arm64 ;;
  *) echo "node-base: unsupported architecture $(dpkg --print-architecture)" >&2; exit 2 ;;
esac

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
mkdir -p "$rootfs" "$work/debs" "$work/npm"

if ! apt-cache show dash >/dev/null 2>&1; then
  echo "node-base: apt has no package lists; run 'apt-get update' first" >&2
  exit 2
fi
mapfile -t closure < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
  --no-breaks --no-replaces --no-enhances "${BINARY_PACKAGES[@]}" | grep -E '^[a-z0-9]' | sort -u)
echo "node-base: Debian packages: ${closure[*]} ${DATA_PACKAGES[*]}"
(cd "$work/debs" && apt-get download -qq "${closure[@]}" "${DATA_PACKAGES[@]}")
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$rootfs"; done

echo "node-base: node-linux-${NODE_ARCH}@${NODE_VERSION} and npm@${NPM_VERSION} from the npm registry"
(cd "$work/npm" && npm pack --silent "node-linux-${NODE_ARCH}@${NODE_VERSION}" "npm@${NPM_VERSION}" >/dev/null)
tar -xzf "$work"/npm/node-linux-*.tgz -C "$work/npm"
install -D -m 0755 "$work/npm/package/bin/node" "$rootfs/usr/local/bin/node"
rm -rf "$work/npm/package"
mkdir -p "$rootfs/usr/local/lib/node_modules"
tar -xzf "$work"/npm/npm-*.tgz -C "$work/npm"
mv "$work/npm/package" "$rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

# What the packages' maintainer scripts would have done.
[ -e "$rootfs/bin/sh" ] || ln -s dash "$rootfs/bin/sh"
mkdir -p "$rootfs/etc/ssl/certs"
find "$rootfs/usr/share/ca-certificates" -name '*.crt' -print0 | sort -z | xargs -0 cat > "$rootfs/etc/ssl/certs/ca-certificates.crt"
ln -sf /usr/share/zoneinfo/Etc/UTC "$rootfs/etc/localtime"
echo "Etc/UTC" > "$rootfs/etc/timezone"
cat > "$rootfs/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
node:x:1000:1000::/home/node:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat > "$rootfs/etc/group" <<'EOF'
root:x:0:
node:x:1000:
nogroup:x:65534:
EOF
mkdir -p "$rootfs/root" "$rootfs/home/node" "$rootfs/tmp"
chmod 1777 "$rootfs/tmp"
chown 1000:1000 "$rootfs/home/node"
# Documentation and man pages are not needed to run or build.
rm -rf "$rootfs/usr/share/doc" "$rootfs/usr/share/man" "$rootfs/usr/share/info" "$rootfs/usr/share/lintian"

"$rootfs/usr/local/bin/node" --version >/dev/null # the binary runs against the host's loader
tar -C "$rootfs" -cf "$work/rootfs.tar" .
"$ENGINE" import \
  --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=${NODE_VERSION}" \
  --change 'CMD ["node"]' \
  "$work/rootfs.tar" "$IMAGE" >/dev/null
echo "node-base: imported $IMAGE ($(du -sh "$work/rootfs.tar" | cut -f1) uncompressed)"
