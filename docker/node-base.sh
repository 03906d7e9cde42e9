#!/usr/bin/env bash
# Assembles the build base of docker/Dockerfile, an equivalent of the official slim Node image,
# from exactly the pieces pinned in docker/node-base.lock (name, version and checksum of each):
#   Debian's runtime libraries (libc6, libstdc++6, libgcc-s1) with their dependencies,
#   ca-certificates, tzdata, dash as /bin/sh and coreutils (the build stage runs npm scripts),
#   a non-root user `node` (uid 1000, as in the official image), the Node binary from the npm
#   registry's `node-linux-<arch>` package (it carries the official build) and npm from `npm`.
# Every download is checked against the lock before use; a version the archive no longer has, or
# a checksum that differs, stops the build with a message. The rootfs is packed reproducibly
# (sorted, fixed times), so the same lock gives the same layer.
# The result is imported as $KB_NODE_BASE_IMAGE (default localhost/kb-node:<node version>-<lock
# hash>); docker/Dockerfile builds on it with --build-arg NODE_IMAGE=<that name>. The service
# images themselves carry no shell or npm: their last stage is FROM scratch (see the Dockerfile).
#
# Usage: docker/node-base.sh [engine]          engine: podman (default) or docker
#        docker/node-base.sh --image-name      prints the image name the lock gives, and exits
#        docker/node-base.sh --update-lock     resolves the newest packages of the pinned Node
#                                              and npm versions (NODE_VERSION, NPM_VERSION to
#                                              change them) and rewrites the lock for this architecture
# Needs: apt-get and dpkg (Debian bookworm or a derivative of the same architecture), npm, tar, sha256sum.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LOCK="$here/node-base.lock"
ENGINE="${CONTAINER_ENGINE:-podman}"
MODE=build
case "${1:-}" in
  --update-lock) MODE=update ;;
  --image-name) MODE=name ;;
  "") ;;
  *) ENGINE="$1" ;;
esac

# The binaries' dependency closure is resolved by apt; the data-only packages are taken alone
# (ca-certificates' maintainer scripts would pull in debconf and openssl, which only build
# the bundle: it is built here instead).
BINARY_PACKAGES=(libc6 libstdc++6 libgcc-s1 dash coreutils)
DATA_PACKAGES=(ca-certificates tzdata)

case "$(dpkg --print-architecture 2>/dev/null || uname -m)" in
  amd64 | x86_64) DEB_ARCH=amd64 NODE_ARCH=x64 ;;
  arm64 | aarch64) DEB_ARCH=arm64 NODE_ARCH=arm64 ;;
  *) echo "node-base: unsupported architecture $(uname -m)" >&2; exit 2 ;;
esac

lock_field() { awk -v k="$1" -v n="$2" '$1 == k && $2 == n { print $3; exit }' "$LOCK"; }

if [ "$MODE" = update ]; then
  for tool in apt-get apt-cache dpkg-deb npm sha256sum; do
    command -v "$tool" >/dev/null || { echo "node-base: '$tool' is needed to update the lock" >&2; exit 2; }
  done
  NODE_VERSION="${NODE_VERSION:-$(lock_field npm "node-linux-${NODE_ARCH}")}"
  NPM_VERSION="${NPM_VERSION:-$(lock_field npm npm)}"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  mapfile -t closure < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances "${BINARY_PACKAGES[@]}" | grep -E '^[a-z0-9]' | sort -u)
  (cd "$work" && apt-get download -qq "${closure[@]}" "${DATA_PACKAGES[@]}")
  {
    echo "# What docker/node-base.sh puts into the build base, and nothing else: kind, name, version,"
    echo "# architecture, checksum (sha256 of the .deb; the npm registry's sha512 integrity)."
    echo "# Written by \`docker/node-base.sh --update-lock\` on $(. /etc/os-release && echo "$PRETTY_NAME"); commit it."
    for deb in "$work"/*.deb; do
      printf 'deb %s %s %s %s\n' "$(dpkg-deb -f "$deb" Package)" "$(dpkg-deb -f "$deb" Version)" \
        "$(dpkg-deb -f "$deb" Architecture)" "$(sha256sum "$deb" | cut -d' ' -f1)"
    done | sort
    for pkg in "node-linux-${NODE_ARCH}@${NODE_VERSION}" "npm@${NPM_VERSION}"; do
      printf 'npm %s %s any %s\n' "${pkg%@*}" "${pkg##*@}" "$(npm view "$pkg" dist.integrity)"
    done
    # The lines of the other architecture are kept.
    grep -E '^(deb|npm) ' "$LOCK" 2>/dev/null | awk -v a="$DEB_ARCH" -v n="node-linux-${NODE_ARCH}" \
      '($1 == "deb" && $4 != a && $4 != "all") || ($1 == "npm" && $2 ~ /^node-linux-/ && $2 != n)' || true
  } > "$work/lock"
  mv "$work/lock" "$LOCK"
  echo "node-base: wrote $LOCK ($(grep -c '^deb ' "$LOCK") Debian packages, node ${NODE_VERSION}, npm ${NPM_VERSION})"
  exit 0
fi

[ -f "$LOCK" ] || { echo "node-base: $LOCK is missing; run docker/node-base.sh --update-lock" >&2; exit 2; }
NODE_VERSION="$(lock_field npm "node-linux-${NODE_ARCH}")"
NPM_VERSION="$(lock_field npm npm)"
[ -n "$NODE_VERSION" ] || { echo "node-base: $LOCK pins no node-linux-${NODE_ARCH}; run docker/node-base.sh --update-lock on this architecture" >&2; exit 2; }
LOCK_HASH="$(sha256sum "$LOCK" | cut -c1-12)"
IMAGE="${KB_NODE_BASE_IMAGE:-localhost/kb-node:${NODE_VERSION}-${LOCK_HASH}}"
if [ "$MODE" = name ]; then
  echo "$IMAGE"
  exit 0
fi

if "$ENGINE" image exists "$IMAGE" 2>/dev/null || "$ENGINE" image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "node-base: $IMAGE is already there"
  exit 0
fi
for tool in apt-get dpkg-deb npm tar sha256sum; do
  command -v "$tool" >/dev/null || { echo "node-base: '$tool' is needed to assemble the base image" >&2; exit 2; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
mkdir -p "$rootfs" "$work/debs" "$work/npm"

mapfile -t debs < <(awk -v a="$DEB_ARCH" '$1 == "deb" && ($4 == a || $4 == "all") { print $2 "=" $3 }' "$LOCK")
echo "node-base: ${#debs[@]} Debian packages as pinned in docker/node-base.lock"
if ! (cd "$work/debs" && apt-get download -qq "${debs[@]}"); then
  echo "node-base: apt could not fetch a pinned version (run 'apt-get update' first; if the archive has" >&2
  echo "  replaced it with a security update, re-pin with docker/node-base.sh --update-lock and commit the lock)" >&2
  exit 2
fi
for deb in "$work"/debs/*.deb; do
  name="$(dpkg-deb -f "$deb" Package)"
  want="$(awk -v n="$name" -v a="$DEB_ARCH" '$1 == "deb" && $2 == n && ($4 == a || $4 == "all") { print $5 }' "$LOCK")"
  got="$(sha256sum "$deb" | cut -d' ' -f1)"
  if [ "$want" != "$got" ]; then
    echo "node-base: $(basename "$deb") has sha256 $got, the lock says ${want:-nothing}; refusing to use it" >&2
    exit 2
  fi
  dpkg-deb -x "$deb" "$rootfs"
done

echo "node-base: node-linux-${NODE_ARCH}@${NODE_VERSION} and npm@${NPM_VERSION} from the npm registry"
for pkg in "node-linux-${NODE_ARCH}" npm; do
  version="$(lock_field npm "$pkg")"
  want="$(awk -v n="$pkg" '$1 == "npm" && $2 == n { print $5 }' "$LOCK")"
  tarball="$(cd "$work/npm" && npm pack --silent "${pkg}@${version}" | tail -n 1)"
  got="sha512-$(openssl dgst -sha512 -binary "$work/npm/$tarball" 2>/dev/null | base64 -w0 || true)"
  [ "$got" != "sha512-" ] || got="sha512-$(node -e "process.stdout.write(require('crypto').createHash('sha512').update(require('fs').readFileSync(process.argv[1])).digest('base64'))" "$work/npm/$tarball")"
  if [ "$want" != "$got" ]; then
    echo "node-base: ${pkg}@${version} has integrity $got, the lock says $want; refusing to use it" >&2
    exit 2
  fi
done
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
# Reproducible: sorted names, one fixed time for every file, no access or change times.
tar -C "$rootfs" --sort=name --mtime=@0 --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
  -cf "$work/rootfs.tar" .
"$ENGINE" import \
  --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=${NODE_VERSION}" \
  --change 'CMD ["node"]' \
  "$work/rootfs.tar" "$IMAGE" >/dev/null
echo "node-base: imported $IMAGE ($(du -sh "$work/rootfs.tar" | cut -f1) uncompressed, rootfs sha256 $(sha256sum "$work/rootfs.tar" | cut -c1-16)…)"
