import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const IDENTITY_HEADERS = ['remote-user', 'remote-name', 'remote-email', 'remote-groups'] as const;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The protected application: a page that shows the `Remote-*` headers it received (and which
 * proxy it was reached through), so the browser test can read them. `?format=json` gives JSON,
 * with the signed `Remote-Assertion` too when the rules ask for one.
 */
export async function startEchoApp(): Promise<{ port: number; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const seen: Record<string, string | null> = {};
    for (const name of IDENTITY_HEADERS) {
      const v = req.headers[name];
      seen[name] = typeof v === 'string' ? v : null;
    }
    const host = req.headers.host ?? '';
    if ((req.url ?? '').includes('format=json')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const assertion = req.headers['remote-assertion'];
      res.end(JSON.stringify({ host, path: req.url, headers: seen, assertion: typeof assertion === 'string' ? assertion : null }));
      return;
    }
    const rows = IDENTITY_HEADERS.map((name) => `<dt>${name}</dt><dd id="${name}">${seen[name] === null ? '(none)' : escapeHtml(seen[name] ?? '')}</dd>`).join(
      '',
    );
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Echo app</title></head><body>` +
        `<h1>Echo app</h1><p id="where">${escapeHtml(host)}${escapeHtml(req.url ?? '')}</p><dl>${rows}</dl></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
