import { caddyFirstApp, nginxFirstApp, reachableAt } from '../../../src/adapters/http/first-app';

describe('the "protect your first app" snippets', () => {
  it('reach a wildcard listener on loopback, and name any other address as it is (IPv6 in brackets)', () => {
    expect(reachableAt('0.0.0.0', 3000)).toBe('127.0.0.1:3000');
    expect(reachableAt('::', 3000)).toBe('127.0.0.1:3000');
    expect(reachableAt('127.0.0.2', 3001)).toBe('127.0.0.2:3001');
    expect(reachableAt('::1', 3001)).toBe('[::1]:3001');
  });

  it('ask the nginx forward-auth endpoint with the original request in X-Original-URL and follow X-Portcullis-Location on a 401', () => {
    const nginx = nginxFirstApp('127.0.0.1:3001');
    expect(nginx).toContain('proxy_pass http://127.0.0.1:3001/api/auth/nginx;');
    expect(nginx).toContain('proxy_set_header X-Original-URL $scheme://$host:$server_port$request_uri;');
    expect(nginx).toContain('auth_request_set $portcullis_location $upstream_http_x_portcullis_location;');
    expect(nginx).toContain('error_page 401 = @portcullis_login;');
    // The request body never goes to the gateway.
    expect(nginx).toContain('proxy_pass_request_body off;');
  });

  it("drop a client's Remote-* headers in caddy before forward auth, inside one route so the order is as written", () => {
    const caddy = caddyFirstApp('127.0.0.1:3001');
    const order = ['route {', 'request_header -Remote-*', 'forward_auth 127.0.0.1:3001 {', 'uri /api/auth/caddy', 'copy_headers Remote-User', 'reverse_proxy'];
    const positions = order.map((text) => caddy.indexOf(text));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });
});
