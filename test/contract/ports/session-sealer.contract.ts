import type { SessionSealer } from '../../../src/application/ports/session-sealer';
import type { Session } from '../../../src/domain/session';
import { useAdapter, type ContractEnv } from './harness';

/** Builds a sealer keyed by `secret`; the suite asks for two secrets to prove tokens do not cross. */
export type SealerFactory = (env: ContractEnv, secret: string) => SessionSealer | Promise<SessionSealer>;

const SECRET = 'contract-sealer-secret-0123456789-abcdefghij';
const OTHER_SECRET = 'contract-sealer-other-secret-9876543210-zyx';

export function aSession(overrides: Partial<Session> = {}): Session {
  return {
    id: 'sess-7f3a',
    username: 'alice',
    name: 'Alice Zoë Example',
    email: 'alice@example.com',
    groups: ['admins', 'dev ops', 'ünïcode'],
    provider: 'username',
    oauth: false,
    totp: true,
    totpPending: false,
    issuedAt: Date.UTC(2026, 0, 1, 12, 0, 0),
    expiresAt: Date.UTC(2026, 0, 2, 12, 0, 0),
    credential: 'q0Zc1XhK3m2R9vT4yB8wNw',
    proven: { password: Date.UTC(2026, 0, 1, 12, 0, 0), totp: Date.UTC(2026, 0, 1, 12, 0, 5) },
    ...overrides,
  };
}

/** Flips one character of a token to a different character of the same alphabet. */
function flipAt(token: string, index: number): string {
  const c = token[index];
  const replacement = c === 'A' ? 'B' : 'A';
  return token.slice(0, index) + replacement + token.slice(index + 1);
}

/** The behaviour every SessionSealer must show: faithful round trips, and null (never a throw) for anything else. */
export function sessionSealerContract(name: string, makeSealer: SealerFactory): void {
  describe(`SessionSealer contract: ${name}`, () => {
    const subject = useAdapter((env) => makeSealer(env, SECRET));
    const sealer = (): SessionSealer => subject.adapter();

    /** Unseals and fails the test if the adapter throws instead of answering null. */
    const open = (token: string): Session | null => {
      let result: Session | null = null;
      expect(() => {
        result = sealer().unseal(token);
      }).not.toThrow();
      return result;
    };

    it('gives back every field of a sealed session', () => {
      const session = aSession();
      expect(open(sealer().seal(session))).toEqual(session);
    });

    it('keeps the flags and the provider of pending, OAuth and Basic sessions', () => {
      for (const session of [
        aSession({ totpPending: true, totp: false }),
        aSession({ provider: 'github', oauth: true, totp: false, groups: [], credential: undefined }),
        aSession({ provider: 'basic', name: '', email: '' }),
      ]) {
        expect(open(sealer().seal(session))).toEqual(session);
      }
    });

    it('keeps "Keep me signed in" and the renewal bound, and adds neither to a session without them', () => {
      const remembered = aSession({ remember: true, renewableUntil: Date.UTC(2026, 0, 8, 12, 0, 0) });
      expect(open(sealer().seal(remembered))).toStrictEqual(remembered);
      const plain = open(sealer().seal(aSession()));
      expect(plain).not.toHaveProperty('remember');
      expect(plain).not.toHaveProperty('renewableUntil');
    });

    it('opens a token with a fresh sealer of the same secret (a restart keeps sessions)', async () => {
      const token = sealer().seal(aSession());
      const restarted = await makeSealer(subject.env(), SECRET);
      expect(restarted.unseal(token)).toEqual(aSession());
    });

    it('reveals neither the username nor the e-mail in the token', () => {
      const token = sealer().seal(aSession({ username: 'visible-user', email: 'visible@example.com' }));
      expect(token).not.toContain('visible');
      expect(token).not.toContain(Buffer.from('visible').toString('base64url'));
    });

    it('produces a token that is safe as a cookie value', () => {
      expect(sealer().seal(aSession())).toMatch(/^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]+$/);
    });

    it('refuses a token sealed with another secret', async () => {
      const foreign = await makeSealer(subject.env(), OTHER_SECRET);
      expect(open(foreign.seal(aSession()))).toBeNull();
    });

    it('refuses a token with any one character changed', () => {
      const token = sealer().seal(aSession());
      for (let i = 0; i < token.length; i += 1) {
        expect(open(flipAt(token, i))).toBeNull();
      }
    });

    it('refuses a truncated token', () => {
      const token = sealer().seal(aSession());
      for (const length of [0, 1, 3, 10, Math.floor(token.length / 2), token.length - 2]) {
        expect(open(token.slice(0, length))).toBeNull();
      }
    });

    it('refuses a token with extra characters appended or inserted', () => {
      const token = sealer().seal(aSession());
      const middle = Math.floor(token.length / 2);
      expect(open(`${token}AAAA`)).toBeNull();
      expect(open(`${token}.x`)).toBeNull();
      expect(open(`${token}=`)).toBeNull();
      for (const extra of ['!', ' ', '=', '.', '\n', '%']) expect(open(token.slice(0, middle) + extra + token.slice(middle))).toBeNull();
    });

    it('refuses a token whose version prefix is changed', () => {
      const token = sealer().seal(aSession());
      const dot = token.indexOf('.');
      const body = dot === -1 ? token : token.slice(dot + 1);
      for (const prefix of ['v0.', 'v2.', 'V1.', 'v1x.', '']) expect(open(prefix + body)).toBeNull();
    });

    it('refuses garbage without throwing', () => {
      const garbage = [
        '',
        '.',
        'v1.',
        'v1',
        'v1.!!!!',
        'v1.' + 'A'.repeat(64),
        'v1.' + '/'.repeat(64),
        'null',
        'undefined',
        '{"i":"x","u":"alice"}',
        '\u0000\u0001\u0002',
        'v1.\u00ff\u00fe\ud83d\ude00',
        'v1.' + 'A'.repeat(100_000),
        'x'.repeat(1_000_000),
      ];
      for (const token of garbage) expect(open(token)).toBeNull();
    });

    it('answers the same tampered token with null every time (no cache poisoning)', () => {
      const token = sealer().seal(aSession());
      const tampered = flipAt(token, Math.floor(token.length / 2));
      expect(open(tampered)).toBeNull();
      expect(open(tampered)).toBeNull();
      expect(open(token)).toEqual(aSession());
    });
  });
}
