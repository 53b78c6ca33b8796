#!/bin/sh
# The stand-in postgres image's entrypoint (test/package/compose.test.ts): what the official image's does for
# the settings docs/compose.yml gives it. On an empty data folder, a cluster whose superuser is POSTGRES_USER
# with the password in POSTGRES_PASSWORD_FILE, the database POSTGRES_DB, and password logins from the
# network; then the server in the foreground, as postgres, on every interface.
set -eu
bin=/usr/lib/postgresql/15/bin
export PGDATA=/var/lib/postgresql/data
mkdir -p "$PGDATA" /run/postgresql
chown postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  install -o postgres -m 600 "$POSTGRES_PASSWORD_FILE" /tmp/password
  as_postgres "$bin/initdb" -D "$PGDATA" -U "$POSTGRES_USER" --pwfile=/tmp/password \
    --auth-local=trust --auth-host=scram-sha-256
  rm /tmp/password
  echo 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
  as_postgres "$bin/pg_ctl" -D "$PGDATA" -o "-c listen_addresses=''" -w start
  as_postgres "$bin/psql" -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d postgres -c "CREATE DATABASE \"$POSTGRES_DB\""
  as_postgres "$bin/pg_ctl" -D "$PGDATA" -m fast -w stop
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups "$bin/postgres" -c listen_addresses='*'
