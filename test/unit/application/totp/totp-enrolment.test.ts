import { AesGcmTotpSecretSealer } from '../../../../src/adapters/crypto/aes-gcm-totp-secret-sealer';
import { InMemoryEnrolledTotpSecrets } from '../../../../src/adapters/state/memory/in-memory-enrolled-totp-secrets';
import { ArtifactOidcAccounts } from '../../../../src/adapters/oidc/artifact-oidc-accounts';
import { ConfiguredOidcClients } from '../../../../src/adapters/oidc/configured-oidc-clients';
import { Sha256SubjectIdentifiers } from '../../../../src/adapters/crypto/sha256-subject-identifiers';
import { InMemoryOidcArtifacts } from '../../../../src/adapters/state/memory/in-memory-oidc-artifacts';
import type { EnrolledTotpSecrets } from '../../../../src/application/totp/enrolled-totp-secrets';
import { StateStoreUnavailableError } from '../../../../src/application/ports/state-store-unavailable';
import type { TotpSecretIssuer } from '../../../../src/application/totp/totp-secret-issuer';
import { SecondFactorSessions } from '../../../../src/application/totp/second-factor-sessions';
import { AuthorizeOidcLoginUseCase } from '../../../../src/application/oidc/authorize-oidc-login';
import { ConfirmTotpEnrolmentUseCase } from '../../../../src/application/totp/confirm-totp-enrolment';
import { GetTotpEnrolmentUseCase } from '../../../../src/application/totp/get-totp-enrolment';
import { RemoveTotpEnrolmentUseCase } from '../../../../src/application/totp/remove-totp-enrolment';
import { StartTotpEnrolmentUseCase } from '../../../../src/application/totp/start-totp-enrolment';
import { aUser, basicAuth } from '../../../support/builders';
import { makeCore, signIn } from '../../../support/core';
import { TEST_SECRET } from '../../../support/credentials';
import { FakeTotpVerifier } from '../../../support/fakes';

const ip = '198.51.100.7';
const NEW_SECRET = 'KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU';
const issuer: TotpSecretIssuer = { newSecret: () => NEW_SECRET, uri: (i, label, secret) => `otpauth://totp/${i}:${label}?secret=${secret}&issuer=${i}` };

function setUp(enrolled: EnrolledTotpSecrets = new InMemoryEnrolledTotpSecrets()) {
  const core = makeCore(
    [
      aUser().named('alice').withPassword('pw').build(),
      aUser().named('bob').withPassword('pw').build(),
      aUser().named('tom').withPassword('pw').withTotp().build(),
      aUser().named('dora').withPasskeyOnly().build(),
    ],
    { enrolled },
  );
  const sealer = new AesGcmTotpSecretSealer(TEST_SECRET);
  const sessions = new SecondFactorSessions(core.index, core.revoked, core.fingerprints, core.issuer);
  return {
    core,
    enrolled,
    state: new GetTotpEnrolmentUseCase(core.authenticator, core.users, enrolled),
    start: new StartTotpEnrolmentUseCase(core.authenticator, core.users, enrolled, issuer, sealer, core.clock, 'Portcullis'),
    confirm: new ConfirmTotpEnrolmentUseCase(
      core.authenticator,
      core.users,
      enrolled,
      sealer,
      { credentials: core.credentials, totp: core.totp, usedSteps: core.usedSteps },
      sessions,
      core.clock,
      core.audit,
    ),
    remove: new RemoveTotpEnrolmentUseCase(core.authenticator, core.users, enrolled, core.credentials, sessions, core.clock, core.audit),
  };
}

type Setup = ReturnType<typeof setUp>;

/** Starts and confirms a set-up for the session `token`; returns the re-issued session's token. */
async function enrol(s: Setup, token: string): Promise<string> {
  const started = await s.start.execute({ sessionToken: token, ip });
  if (!started.ok) throw new Error(`start refused: ${started.error.code}`);
  const code = FakeTotpVerifier.codeAt(NEW_SECRET, s.core.clock.now());
  const confirmed = await s.confirm.execute({ sessionToken: token, enrolment: started.value.enrolment, code, password: 'pw', ip });
  if (!confirmed.ok) throw new Error(`confirm refused: ${confirmed.error.code}`);
  return confirmed.value.token;
}

describe('self-enrolled TOTP', () => {
  describe('enforced wherever an administrator’s TOTP is', () => {
    it('HTTP Basic with the right password passes before the set-up and is refused after it', async () => {
      const s = setUp();
      expect((await s.core.authenticator.authenticate({ credentials: basicAuth('alice', 'pw'), ip })).kind).toBe('basic');
      await enrol(s, (await signIn(s.core, 'alice', 'pw')).token);
      expect((await s.core.authenticator.authenticate({ credentials: basicAuth('alice', 'pw'), ip })).kind).toBe('anonymous');
      expect((await s.core.authenticator.authenticate({ credentials: basicAuth('tom', 'pw'), ip })).kind).toBe('anonymous');
    });

    it('a password login gets a pending session, and the enrolled secret’s code completes it', async () => {
      const s = setUp();
      await enrol(s, (await signIn(s.core, 'alice', 'pw')).token);
      const login = await s.core.login.execute({ login: 'alice', password: 'pw', ip });
      expect(login.ok && login.value.session.totpPending).toBe(true);
      s.core.clock.advance(30_000);
      const code = FakeTotpVerifier.codeAt(NEW_SECRET, s.core.clock.now());
      const verified = await s.core.verifyTotp.execute({ sessionToken: login.ok ? login.value.token : '', code, ip });
      expect(verified.ok && verified.value.session.totp).toBe(true);
    });

    it('the code that confirmed the set-up cannot open the next login (replay)', async () => {
      const s = setUp();
      await enrol(s, (await signIn(s.core, 'alice', 'pw')).token);
      const login = await s.core.login.execute({ login: 'alice', password: 'pw', ip });
      const code = FakeTotpVerifier.codeAt(NEW_SECRET, s.core.clock.now());
      const verified = await s.core.verifyTotp.execute({ sessionToken: login.ok ? login.value.token : '', code, ip });
      expect(verified).toEqual({ ok: false, error: { code: 'totp_replayed' } });
    });

    it('a session from before the set-up no longer opens an OIDC login (nor forward auth); the re-issued one does', async () => {
      const s = setUp();
      const clients = new ConfiguredOidcClients([
        {
          clientId: 'open',
          name: 'open',
          secret: 's'.repeat(32),
          tokenEndpointAuthMethod: 'client_secret_basic',
          redirectUris: ['https://open.example.com/cb'],
          postLogoutRedirectUris: [],
          allowedUsers: [],
          allowedGroups: [],
          scopes: ['openid'],
        },
      ]);
      const oidc = new AuthorizeOidcLoginUseCase(
        s.core.authenticator,
        clients,
        new Sha256SubjectIdentifiers(),
        new ArtifactOidcAccounts(new InMemoryOidcArtifacts(s.core.clock), 3600),
        s.core.audit,
        3600,
        s.core.clock,
      );
      const before = (await signIn(s.core, 'alice', 'pw')).token;
      const other = (await signIn(s.core, 'alice', 'pw')).token;
      const after = await enrol(s, other);
      expect((await oidc.execute({ clientId: 'open', sessionToken: before, ip })).ok).toBe(false);
      expect((await oidc.execute({ clientId: 'open', sessionToken: other, ip })).ok).toBe(false);
      const granted = await oidc.execute({ clientId: 'open', sessionToken: after, ip });
      expect(granted.ok && granted.value.identity.totp).toBe(true);
      expect((await s.core.authenticator.authenticate({ sessionToken: before, ip })).kind).toBe('anonymous');
    });

    it('fails closed when the enrolments cannot be read: logins and Basic answer unavailable, never pass on the password alone', async () => {
      const down: EnrolledTotpSecrets = {
        secretOf: () => {
          throw new StateStoreUnavailableError('redis');
        },
        enrol: async () => false,
        remove: async () => false,
      };
      const s = setUp(down);
      expect(await s.core.login.execute({ login: 'alice', password: 'pw', ip })).toEqual({ ok: false, error: { code: 'store_unavailable' } });
      expect((await s.core.authenticator.authenticate({ credentials: basicAuth('alice', 'pw'), ip })).kind).toBe('unavailable');
    });
  });

  describe('set-up', () => {
    it('states where the TOTP comes from: none, set up here, or the administrator’s', async () => {
      const s = setUp();
      const alice = (await signIn(s.core, 'alice', 'pw')).token;
      expect(await s.state.execute({ sessionToken: alice, ip })).toEqual({ ok: true, value: { state: 'none' } });
      const again = await enrol(s, alice);
      expect(await s.state.execute({ sessionToken: again, ip })).toEqual({ ok: true, value: { state: 'enrolled' } });
      const pending = await s.core.login.execute({ login: 'tom', password: 'pw', ip });
      const tom = await s.core.verifyTotp.execute({
        sessionToken: pending.ok ? pending.value.token : '',
        code: FakeTotpVerifier.codeAt('JBSWY3DPEHPK3PXPJBSWY3DP', s.core.clock.now()),
        ip,
      });
      const tomToken = tom.ok ? tom.value.token : '';
      expect(await s.state.execute({ sessionToken: tomToken, ip })).toEqual({ ok: true, value: { state: 'administrator' } });
      expect(await s.start.execute({ sessionToken: tomToken, ip })).toEqual({ ok: false, error: { code: 'totp_set_by_administrator' } });
    });

    it('offers no set-up to a passkey-only account: it has no password to confirm one with', async () => {
      const s = setUp();
      // dora signs in with passkeys only: seal her a full session as a passkey login would.
      const alice = (await signIn(s.core, 'alice', 'pw')).session;
      const dora = await s.core.users.currentAccount('dora');
      if (dora === null) throw new Error('dora is missing');
      const token = s.core.sealer.seal({ ...alice, username: 'dora', id: 'dora-session', credential: s.core.fingerprints.of(dora) });
      expect(await s.state.execute({ sessionToken: token, ip })).toEqual({ ok: true, value: { state: 'passkey_only' } });
      expect(await s.start.execute({ sessionToken: token, ip })).toEqual({ ok: false, error: { code: 'totp_needs_password' } });
      expect(s.enrolled.secretOf('dora')).toBeNull();
    });

    it('stores nothing before a valid first code, and refuses a token of another session or after ten minutes', async () => {
      const s = setUp();
      const first = (await signIn(s.core, 'alice', 'pw')).token;
      const second = (await signIn(s.core, 'alice', 'pw')).token;
      const started = await s.start.execute({ sessionToken: first, ip });
      if (!started.ok) throw new Error('start refused');
      expect(s.enrolled.secretOf('alice')).toBeNull();
      const code = FakeTotpVerifier.codeAt(NEW_SECRET, s.core.clock.now());
      expect(await s.confirm.execute({ sessionToken: second, enrolment: started.value.enrolment, code, password: 'pw', ip })).toEqual({
        ok: false,
        error: { code: 'enrolment_invalid' },
      });
      expect(await s.confirm.execute({ sessionToken: first, enrolment: started.value.enrolment, code: '000000', password: 'pw', ip })).toEqual({
        ok: false,
        error: { code: 'invalid_code' },
      });
      s.core.clock.advance(10 * 60_000 + 1);
      const late = FakeTotpVerifier.codeAt(NEW_SECRET, s.core.clock.now());
      expect(await s.confirm.execute({ sessionToken: first, enrolment: started.value.enrolment, code: late, password: 'pw', ip })).toEqual({
        ok: false,
        error: { code: 'enrolment_invalid' },
      });
      expect(s.enrolled.secretOf('alice')).toBeNull();
    });

    it('ends every other session of the account and re-issues the caller’s as second-factor verified', async () => {
      const s = setUp();
      const other = (await signIn(s.core, 'alice', 'pw')).token;
      const mine = (await signIn(s.core, 'alice', 'pw')).token;
      const bobs = (await signIn(s.core, 'bob', 'pw')).token;
      const next = await enrol(s, mine);
      expect((await s.core.authenticator.authenticate({ sessionToken: other, ip })).kind).toBe('anonymous');
      expect((await s.core.authenticator.authenticate({ sessionToken: mine, ip })).kind).toBe('anonymous');
      const now = await s.core.authenticator.authenticate({ sessionToken: next, ip });
      expect(now.kind === 'session' && now.session.totp).toBe(true);
      expect((await s.core.authenticator.authenticate({ sessionToken: bobs, ip })).kind).toBe('session');
      expect(s.core.audit.events.map((e) => e.event)).toContain('totp_enrolled');
    });

    it('asks for the password again, counted like a login: a session alone cannot set up a code', async () => {
      const s = setUp();
      const token = (await signIn(s.core, 'alice', 'pw')).token;
      const started = await s.start.execute({ sessionToken: token, ip });
      if (!started.ok) throw new Error('start refused');
      const code = FakeTotpVerifier.codeAt(NEW_SECRET, s.core.clock.now());
      expect(await s.confirm.execute({ sessionToken: token, enrolment: started.value.enrolment, code, password: 'guess', ip })).toEqual({
        ok: false,
        error: { code: 'invalid_credentials' },
      });
      expect(s.core.audit.events.some((e) => e.event === 'login_failed' && e.method === 'password')).toBe(true);
      expect(s.enrolled.secretOf('alice')).toBeNull();
    });

    it('a pending session (password only) cannot set up a code', async () => {
      const s = setUp();
      await enrol(s, (await signIn(s.core, 'alice', 'pw')).token);
      const pending = await s.core.login.execute({ login: 'alice', password: 'pw', ip });
      expect(await s.start.execute({ sessionToken: pending.ok ? pending.value.token : '', ip })).toEqual({ ok: false, error: { code: 'not_logged_in' } });
    });
  });

  describe('removal', () => {
    it('needs a current code, counted under the account’s lock; then the password alone is enough again', async () => {
      const s = setUp();
      const token = await enrol(s, (await signIn(s.core, 'alice', 'pw')).token);
      expect(await s.remove.execute({ sessionToken: token, code: '000000', ip })).toEqual({ ok: false, error: { code: 'invalid_code' } });
      expect(s.core.audit.events.some((e) => e.event === 'login_failed' && e.method === 'totp')).toBe(true);
      s.core.clock.advance(30_000);
      const removed = await s.remove.execute({ sessionToken: token, code: FakeTotpVerifier.codeAt(NEW_SECRET, s.core.clock.now()), ip });
      expect(removed.ok).toBe(true);
      expect(s.enrolled.secretOf('alice')).toBeNull();
      expect((await s.core.authenticator.authenticate({ sessionToken: token, ip })).kind).toBe('anonymous');
      expect((await s.core.authenticator.authenticate({ sessionToken: removed.ok ? removed.value.token : '', ip })).kind).toBe('session');
      expect((await s.core.authenticator.authenticate({ credentials: basicAuth('alice', 'pw'), ip })).kind).toBe('basic');
    });
  });
});
