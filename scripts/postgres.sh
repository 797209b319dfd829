#!/usr/bin/env bash
# Make a local PostgreSQL server available for the `pg` test subset and print its SQLAlchemy URL.
#
# - A server that already accepts the toolatlas login is reused (a second run is quick).
# - As root with apt: installs Debian's `postgresql` if missing, starts a cluster as the postgres
#   user, creates the role and database `toolatlas` / `toolatlas_test`, waits until it accepts
#   connections, then prints the URL on stdout (everything else goes to stderr).
# - Not root or no apt and no server: says so and exits 0 without printing a URL.
# A failure after setup was attempted exits non-zero.
#
# Overrides: TOOLATLAS_PG_PORT (5432), TOOLATLAS_PG_PASSWORD (toolatlas). The server listens on
# localhost only; the password guards a throwaway test database.
set -euo pipefail

# Only the URL may reach stdout: the caller captures it. Tools called below print notices of their
# own (pg_ctlcluster's "Removed stale pid file." once broke CI), so stdout is fd 3 and fd 1 is stderr.
exec 3>&1 1>&2

HOST=127.0.0.1
PORT="${TOOLATLAS_PG_PORT:-5432}"
ROLE=toolatlas
PASSWORD="${TOOLATLAS_PG_PASSWORD:-toolatlas}"
DB=toolatlas_test

log() { echo "postgres.sh: $*" >&2; }

url() { echo "postgresql+psycopg://${ROLE}:${PASSWORD}@${HOST}:${PORT}/${DB}" >&3; }

can_login() {
  command -v psql >/dev/null 2>&1 &&
    PGPASSWORD="$PASSWORD" PGCONNECT_TIMEOUT=3 psql -qtAX -h "$HOST" -p "$PORT" -U "$ROLE" -d "$DB" \
      -c 'select 1' >/dev/null 2>&1
}

if can_login; then
  url
  exit 0
fi

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  log "no PostgreSQL reachable at ${HOST}:${PORT} and not root with apt: PostgreSQL tests skipped"
  exit 0
fi

if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  log "installing the Debian postgresql package"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -qq postgresql >/dev/null 2>&1 3>&-; then
    apt-get update -qq >/dev/null 3>&-
    apt-get install -y -qq postgresql >/dev/null 3>&-
  fi
fi

# The newest installed major version; Debian's package normally creates its `main` cluster.
VERSION="$(ls /usr/lib/postgresql | sort -V | tail -n 1)"
[ -n "$VERSION" ] || { log "no PostgreSQL server binaries under /usr/lib/postgresql"; exit 1; }
CLUSTER="$(pg_lsclusters -h 2>/dev/null | awk -v v="$VERSION" '$1 == v { print $2; exit }')"
if [ -z "$CLUSTER" ]; then
  CLUSTER=main
  log "creating cluster ${VERSION}/${CLUSTER} on port ${PORT}"
  pg_createcluster "$VERSION" "$CLUSTER" --port "$PORT" >/dev/null 3>&-
fi
CLUSTER_PORT="$(pg_lsclusters -h | awk -v v="$VERSION" -v c="$CLUSTER" '$1 == v && $2 == c { print $3 }')"
if [ "$CLUSTER_PORT" != "$PORT" ]; then
  log "cluster ${VERSION}/${CLUSTER} uses port ${CLUSTER_PORT}, not ${PORT}"
  PORT="$CLUSTER_PORT"
fi

if ! pg_lsclusters -h | awk -v v="$VERSION" -v c="$CLUSTER" '$1 == v && $2 == c' | grep -q online; then
  log "starting cluster ${VERSION}/${CLUSTER}"
  # 3>&-: the server would inherit fd 3 and keep the caller's $(...) waiting forever.
  pg_ctlcluster "$VERSION" "$CLUSTER" start 3>&-
fi

as_postgres() { runuser -u postgres -- "$@"; }
for _ in $(seq 1 60); do
  if as_postgres pg_isready -q -p "$PORT"; then break; fi
  sleep 0.5
done
as_postgres pg_isready -q -p "$PORT" || { log "server did not accept connections"; exit 1; }

psql_admin() { as_postgres psql -qtAX -p "$PORT" -v ON_ERROR_STOP=1 "$@"; }
ESCAPED_PASSWORD="${PASSWORD//\'/\'\'}"
if [ "$(psql_admin -c "select 1 from pg_roles where rolname = '${ROLE}'")" != 1 ]; then
  psql_admin -c "create role ${ROLE} login createdb password '${ESCAPED_PASSWORD}'"
else
  psql_admin -c "alter role ${ROLE} login password '${ESCAPED_PASSWORD}'"
fi
if [ "$(psql_admin -c "select 1 from pg_database where datname = '${DB}'")" != 1 ]; then
  psql_admin -c "create database ${DB} owner ${ROLE}"
fi

for _ in $(seq 1 20); do
  if can_login; then
    url
    exit 0
  fi
  sleep 0.5
done
log "role ${ROLE} cannot log in to ${DB} at ${HOST}:${PORT} (check pg_hba.conf)"
exit 1
