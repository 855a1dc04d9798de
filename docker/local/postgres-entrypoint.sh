#!/bin/sh
# Initialises the data directory on first start (like the official image: POSTGRES_DB,
# POSTGRES_HOST_AUTH_METHOD=trust or POSTGRES_PASSWORD), then runs postgres in the foreground.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  auth=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
  if [ "$auth" = trust ]; then
    initdb -D "$PGDATA" -U postgres -E UTF8 --locale=C.UTF-8 --auth=trust >/dev/null
  else
    [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "set POSTGRES_PASSWORD (or POSTGRES_HOST_AUTH_METHOD=trust)" >&2; exit 1; }
    pwfile=$(mktemp); printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    initdb -D "$PGDATA" -U postgres -E UTF8 --locale=C.UTF-8 --auth=scram-sha-256 --pwfile="$pwfile" >/dev/null
    rm -f "$pwfile"
  fi
  echo "host all all all $auth" >>"$PGDATA/pg_hba.conf"
  if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \"$POSTGRES_DB\";" | postgres --single -D "$PGDATA" postgres >/dev/null
  fi
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
