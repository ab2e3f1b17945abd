import { mayBeForwardAuthPath } from '../../../src/adapters/http/request-listener';
import { proxyIndexOf } from '../../../src/adapters/http/forward-auth';

describe('what the public listener refuses as forward auth when it has its own listener', () => {
  it.each([
    '/api/auth/nginx',
    '/api/auth/',
    '/api/auth',
    '/api/auth?x',
    '/api/auth;x/nginx',
    '/API/Auth/nginx',
    '/api/%61uth/nginx',
    '/api/auth%2fnginx',
    '//api/auth/nginx',
    '/api//auth/nginx',
    '/api\\auth\\nginx',
    'http://auth.example.com/api/auth/nginx',
    'HTTP://AUTH.EXAMPLE.COM/api/auth/traefik?x=1',
  ])('refuses %s', (url) => {
    expect(mayBeForwardAuthPath(url)).toBe(true);
  });

  it.each(['/', '/login', '/api/login', '/api/user', '/api/authx', '/api/oauth/url/generic', '/assets/api/auth/x', '/api/%zz'])(
    'lets %s through to the UI and the browser API',
    (url) => {
      expect(mayBeForwardAuthPath(url)).toBe(false);
    },
  );
});

describe('which proxy a forward-auth path names', () => {
  it.each([
    ['/api/auth/traefik', 0],
    ['/api/auth/nginx', 1],
    ['/api/auth/caddy', 2],
    ['/api/auth/traefik?x=1', 0],
    ['/api/auth/nginx?', 1],
    ['/api/auth/caddy?a/b?c', 2],
  ] as const)('reads %s as proxy %i', (url, index) => {
    expect(proxyIndexOf(url)).toBe(index);
  });

  it.each([
    undefined,
    '',
    '/api/auth/',
    '/api/auth/?traefik',
    '/api/auth/caddyx',
    '/api/auth/cadd',
    '/api/auth/Caddy',
    '/api/auth/nginx/',
    '/api/auth/nginx#x',
    '/api/auth/traefik%20',
    '/api/auth/nginxnginx',
    '/x/api/auth/nginx',
    '/api/auth//nginx',
    '/api/authnginx',
  ])('reads %s as no proxy it knows', (url) => {
    expect(proxyIndexOf(url)).toBe(3);
  });
});
