import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Middleware } from 'koa';
import type { HttpSettings } from './http-settings';

/** Pages the single-page UI renders; any other path gets the UI's not-found page with a 404 status. */
export const UI_PAGES = new Set(['/', '/login', '/totp', '/continue', '/account', '/logout', '/unauthorized', '/error', '/forgot-password', '/enrol']);

/**
 * The pages' CSP. `img-src` gains only the origin of an absolute BACKGROUND_IMAGE (a path is
 * 'self' already), never the whole URL: `URL.origin` is scheme, host and port, so no `;` or space
 * the operator wrote can add a directive to the header.
 */
export function contentSecurityPolicy(backgroundImage: string, frameOrigins: readonly string[] = []): string {
  let images = "'self' data:";
  if (/^https?:\/\//i.test(backgroundImage)) images += ` ${new URL(backgroundImage).origin}`;
  // Issue 35: the apps' front-channel logout pages, loaded in hidden frames at logout (origins only, as for images).
  const frames = frameOrigins.length === 0 ? '' : `; frame-src ${[...new Set(frameOrigins.map((o) => new URL(o).origin))].join(' ')}`;
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src ${images}; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'${frames}`;
}

const PAGE_HEADERS = {
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

interface Asset {
  body: Buffer;
  type: string;
}

/** Loads the UI once: `index.html` and the files under `assets/`, served from memory. */
function loadUi(directory: string): { index: Buffer; assets: Map<string, Asset> } {
  const index = readFileSync(join(directory, 'index.html'));
  const assets = new Map<string, Asset>();
  const manifestPath = join(directory, 'assets.json');
  const names: string[] = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : [];
  for (const name of names) {
    const ext = name.slice(name.lastIndexOf('.'));
    assets.set(`/assets/${name}`, { body: readFileSync(join(directory, 'assets', name)), type: TYPES[ext] ?? 'application/octet-stream' });
  }
  return { index, assets };
}

/** The built UI (`dist/ui`), found from the package root whether running from `src` or `dist`. */
export function defaultUiDirectory(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dir !== join(dir, '..')) dir = join(dir, '..');
  return join(dir, 'dist', 'ui');
}

/** Serves the login UI for every non-API path; HTML is never cached, hashed assets are cached for a year. */
export function uiRoutes(settings: HttpSettings): Middleware {
  const directory = settings.uiDirectory ?? defaultUiDirectory();
  // Issue 36: the admin console's page exists only with ADMIN_GROUPS, like its API.
  const adminConsole = (settings.adminGroups ?? []).length > 0;
  const { index, assets } = loadUi(directory);
  const etag = `"${createHash('sha256').update(index).digest('base64url').slice(0, 16)}"`;
  const headers = { ...PAGE_HEADERS, 'content-security-policy': contentSecurityPolicy(settings.app.backgroundImage, settings.frameOrigins) };

  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const asset = assets.get(ctx.path);
    if (asset !== undefined) {
      ctx.set({ 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' });
      ctx.type = asset.type;
      ctx.body = asset.body;
      return;
    }
    ctx.status = UI_PAGES.has(ctx.path) || ((ctx.path === '/admin' || ctx.path === '/invite') && adminConsole) ? 200 : 404;
    ctx.set({ ...headers, 'cache-control': 'no-cache', etag });
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = index;
  };
}
