# A stand-in for docker.io/library/postgres:15 (the registry cannot be reached from CI): Debian 12's
# PostgreSQL 15, from the Debian root the test imports, with an entrypoint doing what the official one
# does for docs/compose.yml's settings.
FROM kurz-compose-test/debian
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
