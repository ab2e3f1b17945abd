import { mayBeForwardAuthPath } from '../../../src/adapters/http/request-listener';

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
