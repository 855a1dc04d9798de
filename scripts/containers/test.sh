#!/usr/bin/env bash
# `npm run test:containers`: builds the service's images with podman, offline (Debian's mirror and
# the npm registry only), starts docker/compose.yaml with podman-compose, and checks it end to end
# through the API (scripts/containers/smoke.ts): a cookbook recipe on an ingested span, a small
# experiment, then two workers and exactly-once on a burst. Stops and removes everything it made
# (containers, network, volumes) whatever happens; the images stay cached for the next run.
#
# Time-boxed: the whole run is killed after OODLE_CONTAINERS_TIMEOUT seconds (default 1500).
# Needs root (rootful podman); installs podman, podman-compose, runc and debootstrap when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${OODLE_CONTAINERS_TIMEBOXED:-}" ]; then
  export OODLE_CONTAINERS_TIMEBOXED=1
  limit=${OODLE_CONTAINERS_TIMEOUT:-1500}
  # --foreground keeps the trap below working; -k sends SIGKILL if the clean-up itself hangs.
  timeout --foreground -k 60 "$limit" bash "$0" "$@" && exit 0
  status=$?
  [ "$status" -eq 124 ] && echo "[containers] FAILED: over the time box of ${limit} s" >&2
  exit "$status"
fi

started=$(date +%s)
. scripts/containers/prepare.sh
log() { echo "[containers] $* ($(( $(date +%s) - started )) s)"; }

# --- images ----------------------------------------------------------------------------------
export OODLE_IMAGE=localhost/oodle POSTGRES_IMAGE=localhost/oodle-postgres:15 REDIS_IMAGE=localhost/oodle-redis:7
build() {
  podman build --build-arg "BASE_IMAGE=$BASE_IMAGE" --build-arg "NODE_IMAGE=$NODE_IMAGE" "$@" >"$OODLE_CONTAINERS_STATE/build.log" 2>&1 \
    || { tail -30 "$OODLE_CONTAINERS_STATE/build.log" >&2; echo "[containers] FAILED: podman build $*" >&2; return 1; }
}
log "building $OODLE_IMAGE:api and :worker (docker/Dockerfile)"
build --target api -t "$OODLE_IMAGE:api" -f docker/Dockerfile .
build --target worker -t "$OODLE_IMAGE:worker" -f docker/Dockerfile .
log "building $POSTGRES_IMAGE and $REDIS_IMAGE from Debian's packages"
build -t "$POSTGRES_IMAGE" -f docker/local/postgres.Containerfile docker/local
build -t "$REDIS_IMAGE" -f docker/local/redis.Containerfile docker/local
# Older builds of these images, which no tag points to any more.
podman image prune -f --filter label=io.oodle.image >/dev/null 2>&1 || true

# --- the stack -------------------------------------------------------------------------------
project="oodle-ct-$$"
export OODLE_API_PORT=${OODLE_API_PORT:-$(node -e 's=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')}
# The worker runs under Podman's default seccomp profile plus bwrap's namespace calls, not unconfined.
if [ -z "${OODLE_SANDBOX_SECCOMP:-}" ]; then
  OODLE_SANDBOX_SECCOMP="$OODLE_CONTAINERS_STATE/sandbox-seccomp.json"
  python3 scripts/containers/sandbox-seccomp.py /usr/share/containers/seccomp.json >"$OODLE_SANDBOX_SECCOMP"
fi
export OODLE_SANDBOX_SECCOMP
export OODLE_WORKERS=1 LOG_LEVEL=warn
compose() { podman-compose --no-ansi -p "$project" -f docker/compose.yaml "$@" >>"$OODLE_CONTAINERS_STATE/compose-$project.log" 2>&1; }
cleanup() {
  status=$?
  if [ "$status" -ne 0 ]; then
    echo "[containers] logs of the failed run:" >&2
    for c in $(podman ps -a --filter "label=io.podman.compose.project=$project" --format '{{.Names}}'); do
      echo "--- $c" >&2; podman logs --tail 30 "$c" >&2 2>&1 || true
    done
  fi
  log "stopping and removing the stack $project"
  OODLE_WORKERS=2 compose down -v -t 10 || true
  podman ps -aq --filter "label=io.podman.compose.project=$project" | xargs -r podman rm -f >/dev/null 2>&1 || true
  podman volume ls -q --filter "label=io.podman.compose.project=$project" | xargs -r podman volume rm -f >/dev/null 2>&1 || true
  podman network rm -f "${project}_default" >/dev/null 2>&1 || true
  rm -f "$OODLE_CONTAINERS_STATE/compose-$project.log"
  exit "$status"
}
trap cleanup EXIT

# podman-compose 1.0.3 neither waits for depends_on conditions nor runs health checks without
# systemd: start in stages and run each check by hand.
healthy() {
  local container=$1 tries=${2:-60}
  for _ in $(seq 1 "$tries"); do
    podman healthcheck run "$container" >/dev/null 2>&1 && return 0
    sleep 1
  done
  echo "[containers] FAILED: $container is not healthy" >&2
  return 1
}
log "starting postgres and redis (project $project)"
compose up -d --no-build postgres redis
healthy "${project}_postgres_1"
healthy "${project}_redis_1"
log "migrating"
compose up -d --no-build migrate
[ "$(podman wait "${project}_migrate_1")" = 0 ] || { echo "[containers] FAILED: migrate" >&2; exit 1; }
log "starting api and one worker"
compose up -d --no-build api worker
healthy "${project}_api_1" 90
# Redis must keep every key: AOF on, no eviction (a defect of the earlier compose file).
redis_config=$(for k in appendonly maxmemory-policy; do podman exec "${project}_redis_1" redis-cli config get "$k"; done | tr '\n' ' ')
[ "$redis_config" = "appendonly yes maxmemory-policy noeviction " ] \
  || { echo "[containers] FAILED: redis runs with: $redis_config" >&2; exit 1; }
log "redis: $redis_config"

# The seccomp profile lets bwrap set the host name of its own UTS namespace, never the container's.
if podman exec "${project}_worker_1" /usr/bin/python3.11 -c 'import socket; socket.sethostname("x")' 2>/dev/null; then
  echo "[containers] FAILED: the worker container could set its own host name" >&2; exit 1
fi
log "the worker container cannot set its own host name (sandbox seccomp profile)"

key=$(podman exec "${project}_api_1" /usr/local/bin/node --import tsx scripts/workspace-create.ts "containers-$project" | sed -n 's/^API key (shown once): //p')
[ -n "$key" ] || { echo "[containers] FAILED: no API key from workspace-create" >&2; exit 1; }
export OODLE_URL="http://127.0.0.1:$OODLE_API_PORT" OODLE_KEY="$key"
log "recipe and experiment against $OODLE_URL"
npx tsx scripts/containers/smoke.ts recipe

log "scaling to two workers"
OODLE_WORKERS=2 compose up -d --no-build worker
for _ in $(seq 1 60); do
  [ "$(podman inspect --format '{{.State.Running}}' "${project}_worker_2" 2>/dev/null)" = true ] && break
  sleep 1
done
sleep 5 # its sandbox preflight; a worker that fails it exits (checked below)
[ "$(podman ps --filter "name=^${project}_worker_" --format '{{.Names}}' | wc -l)" = 2 ] \
  || { echo "[containers] FAILED: two workers are not running" >&2; exit 1; }
npx tsx scripts/containers/smoke.ts burst "${OODLE_BURST_SPANS:-200}"
for w in 1 2; do
  [ "$(podman inspect --format '{{.State.Running}}' "${project}_worker_$w")" = true ] \
    || { echo "[containers] FAILED: worker $w stopped" >&2; exit 1; }
done
log "all container checks passed"
