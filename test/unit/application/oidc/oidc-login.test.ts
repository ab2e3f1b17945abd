import { Sha256SubjectIdentifiers } from '../../../../src/adapters/crypto/sha256-subject-identifiers';
import { ArtifactOidcAccounts } from '../../../../src/adapters/oidc/artifact-oidc-accounts';
import { ConfiguredOidcClients } from '../../../../src/adapters/oidc/configured-oidc-clients';
import { InMemoryOidcArtifacts } from '../../../../src/adapters/state/memory/in-memory-oidc-artifacts';
import { StateStoreUnavailableError } from '../../../../src/application/ports/state-store-unavailable';
import type { OidcAccounts } from '../../../../src/application/oidc/oidc-accounts';
import { AuthorizeOidcLoginUseCase } from '../../../../src/application/oidc/authorize-oidc-login';
import { FindOidcAccountUseCase } from '../../../../src/application/oidc/find-oidc-account';
import { StepUpSessions } from '../../../../src/application/step-up/step-up-sessions';
import type { OidcClient } from '../../../../src/domain/oidc-client';
import { aUser } from '../../../support/builders';
import { makeCore, signIn, type Core } from '../../../support/core';
import { FakeOAuthProvider, FakeTotpVerifier } from '../../../support/fakes';

const ip = '198.51.100.7';
const client = (clientId: string, extra: Partial<OidcClient> = {}): OidcClient => ({
  clientId,
  name: clientId,
  secret: 's'.repeat(32),
  tokenEndpointAuthMethod: 'client_secret_basic',
  redirectUris: [`https://${clientId}.example.com/cb`],
  postLogoutRedirectUris: [],
  allowedUsers: [],
  allowedGroups: [],
  scopes: ['openid', 'email', 'profile'],
  ...extra,
});

function setUp(accountsStore?: OidcAccounts) {
  const core = makeCore([
    aUser().named('alice').withPassword('pw').withGroups('admins').build(),
    aUser().named('bob').withPassword('pw').build(),
    aUser().named('tom').withPassword('pw').withTotp().build(),
  ]);
  const accounts = accountsStore ?? new ArtifactOidcAccounts(new InMemoryOidcArtifacts(core.clock), 3600);
  const clients = new ConfiguredOidcClients([
    client('open'),
    client('admins-only', { allowedGroups: ['admins'] }),
    client('bob-only', { allowedUsers: ['BOB@example.com'] }),
  ]);
  const subjects = new Sha256SubjectIdentifiers();
  return {
    core,
    accounts,
    subjects,
    authorize: new AuthorizeOidcLoginUseCase(core.authenticator, clients, subjects, accounts, core.audit, 3600, core.clock),
    find: new FindOidcAccountUseCase(accounts, core.users, clients, core.fingerprints),
  };
}

describe('AuthorizeOidcLoginUseCase', () => {
  it('takes a live gateway session as the login, with a stable opaque subject', async () => {
    const { core, authorize, subjects } = setUp();
    const { token } = await signIn(core, 'alice', 'pw');
    const result = await authorize.execute({ clientId: 'open', sessionToken: token, ip });
    expect(result).toEqual({
      ok: true,
      value: {
        subject: subjects.subjectOf('username', 'alice'),
        identity: expect.objectContaining({ username: 'alice' }),
        authTime: Math.floor(core.clock.now() / 1000),
        amr: ['pwd'],
        acr: 'sfa',
      },
    });
    expect(core.audit.events).toContainEqual(expect.objectContaining({ event: 'oidc_login', username: 'alice', client: 'open' }));
  });

  describe('what the relying party asks of the login (acr_values, max_age)', () => {
    function withStepUp() {
      const set = setUp();
      const { core, accounts, subjects } = set;
      const clients = new ConfiguredOidcClients([client('open')]);
      const stepUp = { references: core.stepUpReferences, sessions: new StepUpSessions(core.stepUpReferences, core.clock, null), users: core.users };
      return { ...set, authorize: new AuthorizeOidcLoginUseCase(core.authenticator, clients, subjects, accounts, core.audit, 3600, core.clock, stepUp) };
    }
    const back = 'https://auth.example.com/oidc/interaction/abc';

    it('sends a session whose last proof is older than max_age to a step-up that goes back to the interaction', async () => {
      const { core, authorize } = withStepUp();
      const { token } = await signIn(core, 'alice', 'pw');
      const since = core.clock.now() + 1;
      core.clock.advance(5_000);
      const result = await authorize.execute({ clientId: 'open', sessionToken: token, ip, ask: { acr: null, provenSince: since }, stepUpReturnTo: back });
      if (result.ok || result.error.code !== 'step_up_required') throw new Error(`expected a step-up, got ${JSON.stringify(result)}`);
      const request = core.stepUpReferences.unseal(result.error.reference ?? '');
      expect(request).toMatchObject({ username: 'alice', returnTo: back, methods: ['password', 'totp', 'passkey'] });
      // Nothing is remembered or audited as a login before the step-up.
      expect(core.audit.events).not.toContainEqual(expect.objectContaining({ event: 'oidc_login' }));
    });

    it('refuses an acr the account cannot reach (no second factor for mfa) with unmet_authentication_requirements', async () => {
      const { core, authorize } = withStepUp();
      const { token } = await signIn(core, 'alice', 'pw');
      const result = await authorize.execute({ clientId: 'open', sessionToken: token, ip, ask: { acr: ['mfa'], provenSince: null }, stepUpReturnTo: back });
      expect(result).toEqual({ ok: false, error: { code: 'unmet_authentication_requirements' } });
    });

    it('asks for a whole new login when max_age is not met and no step-up is wired, as before step-ups', async () => {
      const { core, authorize } = setUp();
      const { token } = await signIn(core, 'alice', 'pw');
      const since = core.clock.now() + 1;
      const result = await authorize.execute({ clientId: 'open', sessionToken: token, ip, ask: { acr: null, provenSince: since } });
      expect(result).toEqual({ ok: false, error: { code: 'fresh_login_required' } });
    });

    it('reports the value asked that the login meets: a password and TOTP login asked mfa is mfa', async () => {
      const { core, authorize } = withStepUp();
      const pending = await core.login.execute({ login: 'tom', password: 'pw', ip });
      if (!pending.ok) throw new Error('password step failed');
      const code = FakeTotpVerifier.codeAt('JBSWY3DPEHPK3PXPJBSWY3DP', core.clock.now());
      const verified = await core.verifyTotp.execute({ sessionToken: core.sealer.seal(pending.value.session), code, ip });
      if (!verified.ok) throw new Error('TOTP step failed');
      const token = verified.value.token;
      const result = await authorize.execute({ clientId: 'open', sessionToken: token, ip, ask: { acr: ['phr', 'mfa'], provenSince: null } });
      expect(result).toMatchObject({ ok: true, value: { acr: 'mfa', amr: ['pwd', 'otp', 'mfa'] } });
    });
  });

  it('asks for a login without a session, with a TOTP code still owed, or with HTTP Basic only', async () => {
    const { core, authorize } = setUp();
    expect(await authorize.execute({ clientId: 'open', ip })).toEqual({ ok: false, error: { code: 'login_required' } });
    const { token } = await signIn(core, 'tom', 'pw');
    expect(await authorize.execute({ clientId: 'open', sessionToken: token, ip })).toEqual({ ok: false, error: { code: 'login_required' } });
  });

  it('asks for a fresh login when the session was issued before the instant the relying party accepts, and takes one issued at or after it', async () => {
    const { core, authorize } = setUp();
    const { token } = await signIn(core, 'alice', 'pw');
    const issuedAt = core.clock.now();
    core.clock.advance(5_000);
    expect(await authorize.execute({ clientId: 'open', sessionToken: token, ip, loggedInSince: issuedAt + 1 })).toEqual({
      ok: false,
      error: { code: 'fresh_login_required' },
    });
    expect(core.audit.events).not.toContainEqual(expect.objectContaining({ event: 'oidc_login' }));
    const accepted = await authorize.execute({ clientId: 'open', sessionToken: token, ip, loggedInSince: issuedAt });
    expect(accepted).toMatchObject({ ok: true, value: { authTime: Math.floor(issuedAt / 1000) } });
  });

  it('asks for a login again once the session is revoked', async () => {
    const { core, authorize } = setUp();
    const { token } = await signIn(core, 'alice', 'pw');
    await core.logout.execute({ sessionToken: token, fromThisSite: true });
    expect(await authorize.execute({ clientId: 'open', sessionToken: token, ip })).toEqual({ ok: false, error: { code: 'login_required' } });
  });

  it('refuses a person outside ALLOWED_GROUPS or ALLOWED_USERS with access_denied, audited once (not on a re-check)', async () => {
    const { core, authorize } = setUp();
    const { token } = await signIn(core, 'bob', 'pw');
    expect(await authorize.execute({ clientId: 'admins-only', sessionToken: token, ip, recordRefusal: false })).toEqual({
      ok: false,
      error: { code: 'access_denied' },
    });
    expect(core.audit.events.filter((e) => e.event === 'oidc_access_denied')).toEqual([]);
    expect(await authorize.execute({ clientId: 'admins-only', sessionToken: token, ip })).toEqual({ ok: false, error: { code: 'access_denied' } });
    expect(core.audit.events.filter((e) => e.event === 'oidc_access_denied')).toEqual([
      expect.objectContaining({ username: 'bob', client: 'admins-only', ip, reason: 'not_allowed' }),
    ]);
    // ALLOWED_USERS matches the username or the e-mail, case-insensitively.
    expect((await authorize.execute({ clientId: 'bob-only', sessionToken: token, ip })).ok).toBe(true);
    const alice = await signIn(core, 'alice', 'pw');
    expect((await authorize.execute({ clientId: 'admins-only', sessionToken: alice.token, ip })).ok).toBe(true);
    expect(await authorize.execute({ clientId: 'bob-only', sessionToken: alice.token, ip })).toEqual({ ok: false, error: { code: 'access_denied' } });
  });

  it('refuses an unknown client', async () => {
    const { core, authorize } = setUp();
    const { token } = await signIn(core, 'alice', 'pw');
    expect(await authorize.execute({ clientId: 'nobody', sessionToken: token, ip })).toEqual({ ok: false, error: { code: 'unknown_client' } });
  });

  it('only tells the outcome on a dry run: nothing stored, nothing audited', async () => {
    const down: OidcAccounts = {
      remember: () => Promise.reject(new StateStoreUnavailableError('redis')),
      find: () => Promise.resolve(null),
      endTokensBefore: () => Promise.resolve(),
      tokensEnded: () => Promise.resolve({ all: 0, clients: {} }),
    };
    const { core, authorize } = setUp(down);
    const { token } = await signIn(core, 'alice', 'pw');
    const before = core.audit.events.length;
    expect(await authorize.execute({ clientId: 'open', sessionToken: token, ip, dryRun: true })).toMatchObject({ ok: true });
    expect(await authorize.execute({ clientId: 'bob-only', sessionToken: token, ip, dryRun: true })).toEqual({ ok: false, error: { code: 'access_denied' } });
    expect(await authorize.execute({ clientId: 'open', ip, dryRun: true })).toEqual({ ok: false, error: { code: 'login_required' } });
    expect(core.audit.events.slice(before).filter((e) => e.event.startsWith('oidc_'))).toEqual([]);
  });

  it('answers store_unavailable when what the login proved cannot be stored', async () => {
    const down: OidcAccounts = {
      remember: () => Promise.reject(new StateStoreUnavailableError('redis')),
      find: () => Promise.resolve(null),
      endTokensBefore: () => Promise.resolve(),
      tokensEnded: () => Promise.resolve({ all: 0, clients: {} }),
    };
    const { core, authorize } = setUp(down);
    const { token } = await signIn(core, 'alice', 'pw');
    expect(await authorize.execute({ clientId: 'open', sessionToken: token, ip })).toEqual({ ok: false, error: { code: 'store_unavailable' } });
  });
});

describe('FindOidcAccountUseCase', () => {
  async function remembered(): Promise<ReturnType<typeof setUp> & { subject: string; core: Core }> {
    const s = setUp();
    const { token } = await signIn(s.core, 'alice', 'pw');
    const result = await s.authorize.execute({ clientId: 'open', sessionToken: token, ip });
    if (!result.ok) throw new Error('login refused');
    return { ...s, subject: result.value.subject };
  }

  it('refuses a subject for a client whose ALLOWED_GROUPS or ALLOWED_USERS it no longer passes, or an unknown client; no client, no admission', async () => {
    const { core, find, subject } = await remembered();
    expect(await find.execute({ subject, clientId: 'admins-only' })).toMatchObject({ ok: true });
    core.users.replace([aUser().named('alice').withPassword('pw').withGroups('staff').build()]);
    expect(await find.execute({ subject, clientId: 'admins-only' })).toEqual({ ok: false, error: { code: 'not_allowed' } });
    expect(await find.execute({ subject, clientId: 'bob-only' })).toEqual({ ok: false, error: { code: 'not_allowed' } });
    expect(await find.execute({ subject, clientId: 'gone' })).toEqual({ ok: false, error: { code: 'not_allowed' } });
    expect(await find.execute({ subject, clientId: 'open' })).toMatchObject({ ok: true });
    expect(await find.execute({ subject })).toMatchObject({ ok: true });
  });

  it('refuses a token issued before the grants were ended, and takes one issued after', async () => {
    const { core, find, subject, accounts } = await remembered();
    const now = Math.floor(core.clock.now() / 1000);
    await accounts.endTokensBefore(subject, now + 1);
    expect(await find.execute({ subject, issuedAt: now })).toEqual({ ok: false, error: { code: 'grant_ended' } });
    expect(await find.execute({ subject, issuedAt: now + 1 })).toMatchObject({ ok: true });
    // Never moved back.
    await accounts.endTokensBefore(subject, now - 100);
    expect(await find.execute({ subject, issuedAt: now })).toEqual({ ok: false, error: { code: 'grant_ended' } });
  });

  it('refuses every token once the password changed, and after a login with the new one only those issued before it', async () => {
    const { core, find, subject, authorize } = await remembered();
    const before = Math.floor(core.clock.now() / 1000);
    core.users.replace([aUser().named('alice').withPassword('new-pw').withGroups('admins').build()]);
    expect(await find.execute({ subject, issuedAt: before })).toEqual({ ok: false, error: { code: 'grant_ended' } });
    core.clock.advance(5_000);
    const { token } = await signIn(core, 'alice', 'new-pw');
    expect(await authorize.execute({ clientId: 'open', sessionToken: token, ip })).toMatchObject({ ok: true });
    expect(await find.execute({ subject, issuedAt: before })).toEqual({ ok: false, error: { code: 'grant_ended' } });
    expect(await find.execute({ subject, issuedAt: before + 5 })).toMatchObject({ ok: true });
  });

  it('refuses every token once a TOTP secret was added or changed', async () => {
    const { core, find, subject } = await remembered();
    core.users.replace([aUser().named('alice').withPassword('pw').withGroups('admins').build()]);
    expect(await find.execute({ subject })).toMatchObject({ ok: true });
    core.users.replace([aUser().named('alice').withPassword('pw').withGroups('admins').withTotp().build()]);
    expect(await find.execute({ subject })).toEqual({ ok: false, error: { code: 'grant_ended' } });
  });

  it('finds a remembered subject with the account as the store knows it now', async () => {
    const { core, find, subject } = await remembered();
    core.users.replace([aUser().named('alice').withPassword('pw').withGroups('admins', 'ops').withEmail('alice@new.example.com').build()]);
    expect(await find.execute({ subject })).toEqual({
      ok: true,
      value: { subject, identity: expect.objectContaining({ username: 'alice', email: 'alice@new.example.com', groups: ['admins', 'ops'] }) },
    });
  });

  it('knows no subject it never saw, and none whose account was removed', async () => {
    const { core, find, subject } = await remembered();
    expect(await find.execute({ subject: 'x'.repeat(43) })).toEqual({ ok: false, error: { code: 'unknown_account' } });
    core.users.replace([]);
    expect(await find.execute({ subject })).toEqual({ ok: false, error: { code: 'unknown_account' } });
  });
});

describe('an upstream OAuth identity through the OpenID Connect provider', () => {
  it('logs in with its gateway session, gets a subject of its provider, and keeps the claims its login proved', async () => {
    const provider = new FakeOAuthProvider('generic');
    const core = makeCore([], { providers: [provider] });
    const accounts = new ArtifactOidcAccounts(new InMemoryOidcArtifacts(core.clock), 3600);
    const subjects = new Sha256SubjectIdentifiers();
    const authorize = new AuthorizeOidcLoginUseCase(
      core.authenticator,
      new ConfiguredOidcClients([client('open')]),
      subjects,
      accounts,
      core.audit,
      3600,
      core.clock,
      { references: core.stepUpReferences, sessions: new StepUpSessions(core.stepUpReferences, core.clock, null), users: core.users },
    );
    provider.codes.set('code-1', { email: 'dana@example.org', name: 'Dana', username: 'dana', groups: ['ops'] });
    const started = await core.startOAuth.execute({ provider: 'generic', heldFlows: [] });
    if (!started.ok) throw new Error(started.error.code);
    const state = new URL(started.value.url).searchParams.get('state') as string;
    const done = await core.completeOAuth.execute({
      provider: 'generic',
      code: 'code-1',
      state,
      heldFlows: [{ id: started.value.flow.id, token: started.value.flow.token }],
      ip,
    });
    if (!done.ok) throw new Error(done.error.code);

    const result = await authorize.execute({ clientId: 'open', sessionToken: done.value.token, ip });
    if (!result.ok) throw new Error(result.error.code);
    expect(result.value.subject).toBe(subjects.subjectOf('generic', 'dana@example.org'));
    expect(result.value.subject).not.toBe(subjects.subjectOf('username', 'dana@example.org'));
    expect(result.value).toMatchObject({ amr: ['fed'], acr: 'sfa' });
    // Its provider's proof is not ours to renew: an old one needs a whole new login, a second factor cannot be had here.
    core.clock.advance(10_000);
    const since = core.clock.now() - 1_000;
    expect(
      await authorize.execute({ clientId: 'open', sessionToken: done.value.token, ip, ask: { acr: null, provenSince: since }, stepUpReturnTo: 'https://x/' }),
    ).toEqual({
      ok: false,
      error: { code: 'fresh_login_required' },
    });
    expect(
      await authorize.execute({ clientId: 'open', sessionToken: done.value.token, ip, ask: { acr: ['mfa'], provenSince: null }, stepUpReturnTo: 'https://x/' }),
    ).toEqual({
      ok: false,
      error: { code: 'unmet_authentication_requirements' },
    });
    // No user store knows an OAuth identity: its claims are what the login proved, kept by subject.
    const found = await new FindOidcAccountUseCase(accounts, core.users, new ConfiguredOidcClients([]), core.fingerprints).execute({
      subject: result.value.subject,
    });
    expect(found).toEqual({
      ok: true,
      value: { subject: result.value.subject, identity: expect.objectContaining({ email: 'dana@example.org', name: 'Dana', groups: ['ops'], oauth: true }) },
    });
  });
});

describe('Sha256SubjectIdentifiers', () => {
  const subjects = new Sha256SubjectIdentifiers();
  it('gives one 43-character subject per source and username, case-insensitive in the name, never containing it', () => {
    const alice = subjects.subjectOf('username', 'alice');
    expect(alice).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(subjects.subjectOf('username', 'Alice')).toBe(alice);
    expect(subjects.subjectOf('github', 'alice')).not.toBe(alice);
    expect(subjects.subjectOf('ldap', 'alice')).not.toBe(alice);
    expect(subjects.subjectOf('a', 'b\0c')).not.toBe(subjects.subjectOf('a\0b', 'c'));
    expect(alice).not.toContain('alice');
  });
});
