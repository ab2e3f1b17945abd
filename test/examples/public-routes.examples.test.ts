/* eslint-disable @typescript-eslint/no-explicit-any -- parsed YAML of formats we do not own (Traefik, compose, Kubernetes): the assertions are the types. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { caddyFirstApp, nginxFirstApp } from '../../src/adapters/http/first-app';
import { EXAMPLES } from '../e2e/support/proxies';
import { gatewayPublicRoutes } from '../support/public-routes';

/**
 * Review item 8 and usability item 1: what the login host serves has one source, the gateway's
 * public listener. Every shipped example sends the login host's every path there, holding back
 * only forward auth and the operators' probes. The routes are read from the gateway's own router
 * (with passkeys, TOTP set-up and the hand-off on), so a new route fails here the moment an example
 * would answer it 404.
 */

const read = (relative: string): string => readFileSync(join(EXAMPLES, relative), 'utf8');
/** What an example may keep from the internet on the login host: forward auth and the probes. */
const MAY_HOLD_BACK = (path: string): boolean => path === '/api/auth' || path.startsWith('/api/auth/') || path === '/api/ready' || path === '/api/health';

let routes: string[];
beforeAll(async () => {
  routes = await gatewayPublicRoutes();
});

it("reads the gateway's routes from its router (the account, passkey, TOTP set-up and hand-off APIs among them)", () => {
  for (const expected of ['/api/login', '/api/account', '/api/passkeys/login', '/api/account/totp/setup', '/api/handoff/start', '/api/oauth/url/generic', '/account', '/enrol'])
    expect(routes).toContain(expected);
});

/** nginx: the location a path selects (exact `=`, then the first matching `~`/`~*` regex, then the longest prefix) and its body. */
function nginxLocation(config: string, server: string, path: string): string {
  const body = config.slice(config.indexOf(server));
  const locations = [...body.matchAll(/^\s*location\s+(=|~\*?)?\s*(\S+)\s*\{((?:'[^']*'|[^{}'])*)\}/gm)].map((m) => ({ modifier: m[1], path: m[2], body: m[3] }));
  expect(locations.length).toBeGreaterThan(1);
  const exact = locations.find((l) => l.modifier === '=' && l.path === path);
  if (exact !== undefined) return exact.body;
  const regex = locations.find((l) => l.modifier?.startsWith('~') && new RegExp(l.path, l.modifier === '~*' ? 'i' : '').test(path));
  if (regex !== undefined) return regex.body;
  const prefixes = locations.filter((l) => l.modifier === undefined && !l.path.startsWith('@') && path.startsWith(l.path)).sort((a, b) => b.path.length - a.path.length);
  return prefixes[0]?.body ?? '';
}

describe('every public route of the gateway reaches it from every shipped example of the login host', () => {
  const missing = (reaches: (path: string) => boolean): string[] => routes.filter((r) => !MAY_HOLD_BACK(r) && !reaches(r));

  it('examples/nginx/auth.conf.template (rendered by render.sh and mounted by docker-compose.yml)', () => {
    const config = read('nginx/auth.conf.template');
    expect(missing((path) => nginxLocation(config, 'server_name ${AUTH_HOST}', path).includes('proxy_pass http://portcullis_ui;'))).toEqual([]);
  });

  it.each(['caddy/Caddyfile', 'docker-compose/Caddyfile'])('%s: the login site holds back only forward auth and the probes', (file) => {
    const caddyfile = read(file);
    const matchers = [...caddyfile.matchAll(/^\t@(\S+) path (.+)$/gm)];
    // Every path matcher of a site: a held-back path list; Caddy's `*` is a prefix.
    for (const [, , list] of matchers) {
      for (const pattern of list.trim().split(/\s+/)) {
        const held = (path: string): boolean => (pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern);
        expect({ file, pattern, holds: routes.filter((r) => held(r) && !MAY_HOLD_BACK(r)) }).toEqual({ file, pattern, holds: [] });
      }
    }
    expect(caddyfile).not.toMatch(/not path/);
    expect(caddyfile).toMatch(/\thandle \{\n\t\treverse_proxy (\{\$PORTCULLIS_UPSTREAM|portcullis-1:3000)/);
  });

  const traefikRules = (): Array<[string, string]> => [
    ['traefik/dynamic.yml', parse(read('traefik/dynamic.yml')).http.routers.portcullis.rule],
    ['traefik/docker-compose.labels.yml', parse(read('traefik/docker-compose.labels.yml')).services.portcullis.labels['traefik.http.routers.portcullis.rule']],
    ['docker-compose.yml', parse(read('docker-compose.yml')).services.portcullis.labels['traefik.http.routers.portcullis.rule']],
  ];
  it.each(traefikRules())('%s: the login router excludes only forward auth and the probes', (_file, rule) => {
    expect(rule).not.toMatch(/(^|&&\s*)(PathPrefix|Path|PathRegexp)\(/);
    const excluded = [...rule.matchAll(/!(PathPrefix|Path)\(`([^`]+)`\)/g)].map(([, kind, path]) => ({ kind, path }));
    const reaches = (route: string): boolean => !excluded.some((e) => (e.kind === 'Path' ? route === e.path : route.startsWith(e.path)));
    expect(missing(reaches)).toEqual([]);
  });

  it('kubernetes/ingress.yaml: the login host Ingress sends every path to the public port', () => {
    const docs = parseAllDocuments(read('kubernetes/ingress.yaml')).map((d) => d.toJSON());
    const ingress = docs.find((d: any) => d?.kind === 'Ingress' && d.metadata.name === 'portcullis');
    const paths = ingress.spec.rules[0].http.paths as any[];
    const reaches = (route: string): boolean =>
      paths.some(
        (p) =>
          p.backend.service.name === 'portcullis' &&
          p.backend.service.port.name === 'http' &&
          (p.pathType === 'Exact' ? route === p.path : p.path === '/' || route === p.path || route.startsWith(`${p.path}/`)),
      );
    expect(missing(reaches)).toEqual([]);
  });

  it("the demo's first-app snippets protect the app only: the login host is the gateway itself, no route list to miss", () => {
    for (const snippet of [nginxFirstApp('127.0.0.1:3001'), caddyFirstApp('127.0.0.1:3001')]) {
      const apiPaths = [...snippet.matchAll(/\/api\/[a-z/]*/g)].map((m) => m[0]);
      expect(apiPaths.every((p) => p.startsWith('/api/auth/'))).toBe(true);
    }
  });

  it('docs/proxies.md says what the examples do: everything to the public listener, no list of routes', () => {
    const doc = readFileSync(join(EXAMPLES, '..', 'docs', 'proxies.md'), 'utf8');
    const rule = /1\. \*\*Forward auth is asked on Portcullis's internal listener\*\*[\s\S]*?\n2\. /.exec(doc)?.[0] ?? '';
    expect(rule).toContain('every other path of the login host');
    for (const route of ['/api/login', '/api/totp', '/api/user', '/api/oauth/*']) expect(rule).not.toContain(`\`${route}\``);
  });
});
