#!/bin/sh
# Renders the nginx templates of this directory into <out-dir> (e.g. /etc/nginx/conf.d), filling
# only Portcullis's own placeholders: `envsubst < template` would blank every nginx variable
# ($host, $request_uri, ...), so this runs envsubst with the exact list of names below, refuses a
# missing or empty value, and refuses values that could break out of an nginx directive.
#
#   sh examples/nginx/render.sh <out-dir>             shared files, plus the application when APP_HOST is set
#   sh examples/nginx/render.sh --app-only <out-dir>  one more protected application
#
# Placeholders (environment variables):
#   AUTH_HOST                the host of Portcullis's APP_URL, e.g. auth.example.com (several
#                            APP_URL entries: every host, separated by spaces)
#   PORTCULLIS_UPSTREAM      Portcullis's public listener (PORT), host:port; default 127.0.0.1:3000
#   PORTCULLIS_FORWARD_AUTH  Portcullis's forward-auth listener (FORWARD_AUTH_PORT), host:port;
#                            default 127.0.0.1:3001. Never reachable from the internet.
#   APP_HOST                 the protected application's host, e.g. app.example.com
#   APP_UPSTREAM             where it runs, host:port, e.g. 127.0.0.1:8080 (plain HTTP, kept-alive
#                            connections; http://127.0.0.1:8080 is read the same)
#   TLS_CERTIFICATE          certificate (chain) naming AUTH_HOST and every APP_HOST, PEM file path
#   TLS_CERTIFICATE_KEY      its private key, PEM file path
#   HTTPS_PORT               default 443; APP_LISTEN defaults to "<HTTPS_PORT> ssl"
#   HTTP_LISTEN              where plain HTTP is redirected to HTTPS; default 80
#   APP_LISTEN               the listen parameters of every server; default "<HTTPS_PORT> ssl"
#                            (e.g. "127.0.0.1:8443 ssl" for one address)
#   TLS=off                  plain HTTP only, for a first try on localhost: no tls.conf, no
#                            redirect, APP_LISTEN required (e.g. 127.0.0.1:8080)
#
# Files written: portcullis-default.conf, portcullis-tls.conf (with TLS), portcullis-auth.conf and
# portcullis-app-<APP_HOST>.conf. Include them in nginx's http context (conf.d/*.conf is), then
# `nginx -t && nginx -s reload`. The test suite test/examples renders the examples with this
# script, exactly as written here.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
mode=all
if [ "${1:-}" = "--app-only" ]; then
  mode=app
  shift
fi
if [ $# -ne 1 ]; then
  echo "usage: sh $0 [--app-only] <out-dir>" >&2
  exit 64
fi
out=$1
command -v envsubst >/dev/null 2>&1 || {
  echo "render.sh: envsubst not found (Debian/Ubuntu: apt-get install gettext-base)" >&2
  exit 69
}

: "${PORTCULLIS_UPSTREAM:=127.0.0.1:3000}"
: "${PORTCULLIS_FORWARD_AUTH:=127.0.0.1:3001}"
: "${TLS:=on}"
if [ "$TLS" = "off" ]; then
  : "${APP_LISTEN:?TLS=off needs APP_LISTEN, e.g. 127.0.0.1:8080}"
  HTTPS_PORT_SUFFIX=""
else
  : "${HTTPS_PORT:=443}"
  : "${HTTP_LISTEN:=80}"
  : "${APP_LISTEN:=$HTTPS_PORT ssl}"
  if [ "$HTTPS_PORT" = "443" ]; then HTTPS_PORT_SUFFIX=""; else HTTPS_PORT_SUFFIX=":$HTTPS_PORT"; fi
fi
export AUTH_HOST="${AUTH_HOST:-}" APP_HOST="${APP_HOST:-}" APP_UPSTREAM="${APP_UPSTREAM:-}"
export PORTCULLIS_UPSTREAM PORTCULLIS_FORWARD_AUTH APP_LISTEN HTTPS_PORT_SUFFIX
export HTTP_LISTEN="${HTTP_LISTEN:-}" TLS_CERTIFICATE="${TLS_CERTIFICATE:-}" TLS_CERTIFICATE_KEY="${TLS_CERTIFICATE_KEY:-}"

# Every value ends up inside an nginx directive: no quotes, braces, semicolons, `$` or line breaks.
check() {
  for name in "$@"; do
    eval "value=\${$name}"
    if [ -z "$value" ]; then
      echo "render.sh: $name is not set (see the top of $0)" >&2
      exit 64
    fi
    case $value in
      *[\;\{\}\"\'\$\\]* | *"
"*)
        echo "render.sh: $name contains a character nginx would read as syntax: $value" >&2
        exit 64
        ;;
    esac
  done
}

# Renders template $1 to $2 with the names listed after them, and only those.
render() {
  template=$1
  target=$2
  shift 2
  check "$@"
  list=""
  for name in "$@"; do list="$list \${$name}"; done
  envsubst "$list" <"$here/$template" >"$out/$target.tmp"
  mv "$out/$target.tmp" "$out/$target"
  echo "render.sh: wrote $out/$target"
}

# APP_UPSTREAM used to be a proxy_pass URL: http://host:port[/] still means host:port.
case ${APP_UPSTREAM:-} in
  http://*)
    APP_UPSTREAM=${APP_UPSTREAM#http://}
    APP_UPSTREAM=${APP_UPSTREAM%/}
    ;;
esac
case ${APP_UPSTREAM:-} in
  */*)
    echo "render.sh: APP_UPSTREAM is host:port (the server of an upstream pool), without a path or https://: $APP_UPSTREAM" >&2
    exit 64
    ;;
esac

for name in PORTCULLIS_UPSTREAM PORTCULLIS_FORWARD_AUTH APP_UPSTREAM; do
  eval "value=\${$name}"
  case $value in
    *://*)
      echo "render.sh: $name is host:port (an upstream server), without a scheme: $value" >&2
      exit 64
      ;;
  esac
done

# Every value is checked before anything is written.
if [ "$mode" = "all" ]; then
  check APP_LISTEN PORTCULLIS_UPSTREAM PORTCULLIS_FORWARD_AUTH AUTH_HOST
  if [ "$TLS" != "off" ]; then check TLS_CERTIFICATE TLS_CERTIFICATE_KEY HTTP_LISTEN; fi
fi
if [ "$mode" = "app" ] || [ -n "$APP_HOST" ]; then check APP_LISTEN APP_HOST APP_UPSTREAM; fi

mkdir -p "$out"
if [ "$mode" = "all" ]; then
  render default.conf.template portcullis-default.conf APP_LISTEN PORTCULLIS_UPSTREAM PORTCULLIS_FORWARD_AUTH
  if [ "$TLS" != "off" ]; then
    # HTTPS_PORT_SUFFIX is empty for port 443, so it is not in check's list.
    envsubst '${TLS_CERTIFICATE} ${TLS_CERTIFICATE_KEY} ${HTTP_LISTEN} ${HTTPS_PORT_SUFFIX}' <"$here/tls.conf.template" >"$out/portcullis-tls.conf"
    echo "render.sh: wrote $out/portcullis-tls.conf"
  else
    rm -f "$out/portcullis-tls.conf"
  fi
  render auth.conf.template portcullis-auth.conf APP_LISTEN AUTH_HOST
fi
if [ "$mode" = "app" ] || [ -n "$APP_HOST" ]; then
  render portcullis.conf.template "portcullis-app-$APP_HOST.conf" APP_LISTEN APP_HOST APP_UPSTREAM
fi
