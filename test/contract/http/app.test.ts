import { hashOf } from '../../support/credentials';
import { startGateway } from '../../support/server';
import { expectEnvelope } from '../../support/http';

describe('GET /api/app', () => {
  it('reports the defaults: title, generic name, domain, forgot-password text naming USERS, no auto redirect, the username provider', async () => {
    const gw = await startGateway({ USERS: `alice:${hashOf('pw')}` });
    try {
      const body = await expectEnvelope(await fetch(`${gw.url}/api/app`), 200);
      expect(body).toEqual({
        status: 200,
        code: 'ok',
        message: 'OK',
        title: 'Portcullis',
        genericName: 'Generic',
        domain: 'example.test',
        forgotPasswordMessage: expect.stringContaining('USERS'),
        forgotPasswordStores: { users: true, usersFile: false, ldap: false, providers: [] },
        oauthAutoRedirect: 'none',
        disableContinue: false,
        passkeys: true,
        tokens: true,
        tokenMaxLifetimeDays: 365,
        rememberMe: false,
        configuredProviders: ['username'],
        providers: [{ id: 'username', name: 'Username', oauth: false }],
        backgroundImage: '',
        demo: null,
        language: '',
        languages: [],
      });
    } finally {
      await gw.close();
    }
  });

  it('reports UI_LANGUAGE and UI_LANGUAGES as the catalog tags the UI uses, whatever case they were written in', async () => {
    const gw = await startGateway({ USERS: `alice:${hashOf('pw')}`, UI_LANGUAGE: 'EN', UI_LANGUAGES: 'en' });
    try {
      const body = await expectEnvelope(await fetch(`${gw.url}/api/app`), 200);
      expect(body).toMatchObject({ language: 'en', languages: ['en'] });
    } finally {
      await gw.close();
    }
  });

  it('reports what APP_TITLE, GENERIC_NAME, FORGOT_PASSWORD_MESSAGE and DISABLE_CONTINUE configure', async () => {
    const gw = await startGateway({
      USERS: `alice:${hashOf('pw')}`,
      APP_URL: 'https://login.corp.example.test',
      APP_TITLE: 'Corp SSO',
      GENERIC_NAME: 'Keycloak',
      FORGOT_PASSWORD_MESSAGE: 'Call the help desk',
      DISABLE_CONTINUE: 'true',
    });
    try {
      const body = await expectEnvelope(await fetch(`${gw.url}/api/app`), 200);
      expect(body).toMatchObject({
        title: 'Corp SSO',
        genericName: 'Keycloak',
        forgotPasswordMessage: 'Call the help desk',
        // Written by the operator: shown as written, in every language.
        forgotPasswordStores: null,
        disableContinue: true,
        domain: 'corp.example.test',
      });
    } finally {
      await gw.close();
    }
  });

  it("reports BACKGROUND_IMAGE as backgroundImage, and the pages' CSP lets the browser load it from its origin only", async () => {
    const gw = await startGateway({ USERS: `alice:${hashOf('pw')}`, BACKGROUND_IMAGE: 'https://images.example.test/login/bg.jpg' });
    try {
      const body = await expectEnvelope(await fetch(`${gw.url}/api/app`), 200);
      expect(body.backgroundImage).toBe('https://images.example.test/login/bg.jpg');
      const page = await fetch(`${gw.url}/login`, { headers: { accept: 'text/html' } });
      expect(page.headers.get('content-security-policy')).toContain("img-src 'self' data: https://images.example.test;");
    } finally {
      await gw.close();
    }
  });

  it('reports the host itself as the domain for a localhost APP_URL', async () => {
    const gw = await startGateway({ USERS: `alice:${hashOf('pw')}`, APP_URL: 'http://localhost:3000' });
    try {
      expect(((await (await fetch(`${gw.url}/api/app`)).json()) as { domain: string }).domain).toBe('localhost');
    } finally {
      await gw.close();
    }
  });

  it('answers HEAD with the headers and no body, and POST with 405', async () => {
    const gw = await startGateway({ USERS: `alice:${hashOf('pw')}` });
    try {
      const head = await fetch(`${gw.url}/api/app`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('cache-control')).toBe('no-store');
      expect(await head.text()).toBe('');
      const post = await fetch(`${gw.url}/api/app`, { method: 'POST' });
      await expectEnvelope(post, 405);
      expect(post.headers.get('allow')).toBe('GET, HEAD');
    } finally {
      await gw.close();
    }
  });
});
