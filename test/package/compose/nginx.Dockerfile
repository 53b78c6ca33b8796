# A stand-in for docker.io/library/nginx:stable (the registry cannot be reached from CI): Debian 12's
# nginx, laid out as the official image is, with only /etc/nginx/conf.d/*.conf as sites.
FROM kurz-compose-test/debian
RUN rm -f /etc/nginx/sites-enabled/default
EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
