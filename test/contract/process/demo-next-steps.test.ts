import { freePort } from '../../support/net';
import { built, runNode } from '../../support/process';

/** The demo's start-up banner says what to do next: protect a first app behind nginx or caddy. */
describe("the demo's start-up banner", () => {
  async function bannerOf(env: Record<string, string>): Promise<string> {
    const child = runNode(built('src/main.js'), [], { ADDRESS: '127.0.0.1', ...env });
    try {
      await child.waitFor(/portcullis listening/);
      return child.stderr;
    } finally {
      await child.stop();
    }
  }

  it('points to "protect your first app" with a ready nginx and caddy snippet asking the demo on this machine, and to docs/proxies.md', async () => {
    const port = await freePort();
    const banner = await bannerOf({ PORT: String(port) });
    expect(banner).toContain(`   Open http://localhost:${port}/login`);
    expect(banner).toContain('Next: protect your first app. Say it runs on 127.0.0.1:8080; put it behind');
    expect(banner).toContain('a proxy on http://localhost:8000, open that and log in (more: docs/proxies.md).');
    // nginx: auth_request to the forward-auth endpoint with the original request in X-Original-URL, the login on 401.
    expect(banner).toMatch(/\n {5}server \{\n {9}listen 8000;\n/);
    expect(banner).toContain('         auth_request /portcullis-auth;');
    expect(banner).toContain(`             proxy_pass http://127.0.0.1:${port}/api/auth/nginx;`);
    expect(banner).toContain('             proxy_set_header X-Original-URL $scheme://$host:$server_port$request_uri;');
    expect(banner).toContain('             return 302 $portcullis_location;');
    expect(banner).toContain('             proxy_pass http://127.0.0.1:8080;');
    // caddy: client-sent Remote-* dropped, then forward_auth to the same place.
    expect(banner).toMatch(/\n {5}http:\/\/localhost:8000 \{\n {9}route \{\n {13}request_header -Remote-\*\n {13}forward_auth 127\.0\.0\.1:\d+ \{\n/);
    expect(banner).toContain(`             forward_auth 127.0.0.1:${port} {`);
    expect(banner).toContain('                 uri /api/auth/caddy');
  }, 30_000);

  it('listens on this machine only unless ADDRESS says otherwise: it prints a password', async () => {
    const port = await freePort();
    const child = runNode(built('src/main.js'), [], { PORT: String(port) });
    try {
      await child.waitFor(/portcullis listening/);
      expect(JSON.parse(child.stdout.split('\n').find((l) => l.includes('portcullis listening')) ?? '{}')).toMatchObject({ address: '127.0.0.1', port });
    } finally {
      await child.stop();
    }
  }, 30_000);

  it("sends the snippets' forward auth to FORWARD_AUTH_PORT when the demo runs with one", async () => {
    const [port, forwardAuth] = [await freePort(), await freePort()];
    const banner = await bannerOf({ PORT: String(port), FORWARD_AUTH_PORT: String(forwardAuth) });
    expect(banner).toContain(`proxy_pass http://127.0.0.1:${forwardAuth}/api/auth/nginx;`);
    expect(banner).toContain(`forward_auth 127.0.0.1:${forwardAuth} {`);
    expect(banner).not.toContain(`127.0.0.1:${port}/api/auth`);
  }, 30_000);
});
