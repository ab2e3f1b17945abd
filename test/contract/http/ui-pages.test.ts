import { hashOf } from '../../support/credentials';
import { startGateway, type RunningGateway } from '../../support/server';

/** The built UI (dist/ui, made by `npm run build`, which `pretest` runs) as the gateway serves it. */
describe('UI pages and assets', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('pw')}` });
  });
  afterAll(() => gw.close());

  const PAGES = ['/', '/login', '/totp', '/continue', '/account', '/logout', '/unauthorized', '/error', '/forgot-password', '/enrol'];

  it.each(PAGES)('serves %s as no-cache HTML with a CSP that allows no inline script or style', async (path) => {
    const res = await fetch(`${gw.url}${path}`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/style-src 'self'(;|$)/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers an unknown page with the same HTML and a 404 status', async () => {
    const res = await fetch(`${gw.url}/no/such/page`);
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/<div class="card" id="app"/);
  });

  it('has no inline script or style in the page itself', async () => {
    const html = await (await fetch(`${gw.url}/login`)).text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
  });

  it('serves the content-hashed script, stylesheet and icon the page names, cached for a year', async () => {
    const html = await (await fetch(`${gw.url}/login`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.map((a) => a.replace(/\.[A-Za-z0-9]{8,}\./, '.HASH.')).sort()).toEqual([
      '/assets/app.HASH.css',
      '/assets/icon.HASH.svg',
      '/assets/main.HASH.js',
    ]);
    const types: Record<string, string> = { js: 'text/javascript', css: 'text/css', svg: 'image/svg+xml' };
    for (const asset of assets) {
      const res = await fetch(`${gw.url}${asset}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-type')).toContain(types[asset.split('.').pop() ?? '']);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  });

  it('answers an asset name that was not built with the 404 page, not a file', async () => {
    const res = await fetch(`${gw.url}/assets/main.js`);
    expect(res.status).toBe(404);
    expect(res.headers.get('cache-control')).toBe('no-cache');
  });
});
