/**
 * "Protect your first app": the nginx and caddy snippets the demo shows after start-up (the banner)
 * and after login (the account page), for a local app on 127.0.0.1:8080 served at
 * http://localhost:8000. The demo's cookie is host-only for `localhost`, and browsers do not tell
 * ports apart for cookies, so a login on localhost:3000 also counts on localhost:8000.
 *
 * They follow the shape of the shipped examples, cut to the bone: forward auth goes to the
 * gateway's forward-auth listener, nginx names the original request in `X-Original-URL` (the only
 * header `/api/auth/nginx` reads) and follows `X-Portcullis-Location` on a 401, caddy drops any
 * `Remote-*` header a client sent before asking. The full versions are in examples/ and
 * docs/proxies.md.
 *
 * The login UI imports this file too, so it stays free of imports (like app-context.ts).
 */

/** Where the demo's snippets put the app: the proxy's port, and where the app itself runs. */
export const FIRST_APP = { url: 'http://localhost:8000', listen: 8000, upstream: '127.0.0.1:8080' } as const;

export const PROXIES_DOC = 'docs/proxies.md';

/** An nginx `server` block (for the `http` context) protecting the app; `forwardAuth` is host:port of the forward-auth listener. */
export function nginxFirstApp(forwardAuth: string): string {
  return [
    'server {',
    `    listen ${FIRST_APP.listen};`,
    '    location / {',
    '        auth_request /portcullis-auth;',
    '        auth_request_set $portcullis_location $upstream_http_x_portcullis_location;',
    '        auth_request_set $portcullis_user $upstream_http_remote_user;',
    '        error_page 401 = @portcullis_login;',
    '        proxy_set_header Remote-User $portcullis_user;',
    `        proxy_pass http://${FIRST_APP.upstream};`,
    '    }',
    '    location = /portcullis-auth {',
    '        internal;',
    `        proxy_pass http://${forwardAuth}/api/auth/nginx;`,
    '        proxy_pass_request_body off;',
    '        proxy_set_header Content-Length "";',
    '        proxy_set_header X-Original-URL $scheme://$host:$server_port$request_uri;',
    '        proxy_set_header X-Original-Method $request_method;',
    '    }',
    '    location @portcullis_login {',
    '        return 302 $portcullis_location;',
    '    }',
    '}',
  ].join('\n');
}

/** A Caddyfile site protecting the app; `forwardAuth` is host:port of the forward-auth listener. */
export function caddyFirstApp(forwardAuth: string): string {
  return [
    `${FIRST_APP.url} {`,
    '\troute {',
    '\t\trequest_header -Remote-*',
    `\t\tforward_auth ${forwardAuth} {`,
    '\t\t\turi /api/auth/caddy',
    // The 2xx without its body, so Caddy keeps its connection to forward auth (see docs/proxies.md).
    '\t\t\theader_up Prefer return=minimal',
    '\t\t\tcopy_headers Remote-User',
    '\t\t}',
    `\t\treverse_proxy ${FIRST_APP.upstream}`,
    '\t}',
    '}',
  ].join('\n');
}

/** host:port a local proxy reaches a listener at: a wildcard address means loopback. */
export function reachableAt(address: string, port: number): string {
  const host = address === '' || address === '0.0.0.0' || address === '::' ? '127.0.0.1' : address.includes(':') ? `[${address}]` : address;
  return `${host}:${port}`;
}
