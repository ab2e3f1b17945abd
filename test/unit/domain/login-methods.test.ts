import { acrOf, amrOf, checkRequirement, lastProven, withProven, type ProvenMethods, type Requirement } from '../../../src/domain/login-methods';

const T = Date.UTC(2026, 11, 2, 12, 0, 0);
const MIN = 60_000;
const need = (r: Partial<Requirement>): Requirement => ({ secondFactor: false, methods: null, maxAgeMs: null, ...r });
const session = (proven: ProvenMethods) => ({ kind: 'session', proven }) as const;

describe('what a session proved, and how it is told', () => {
  it('adds a method at its time, never moves a time backwards and never drops a method', () => {
    const p = withProven({ password: T, totp: T + MIN }, ['totp', 'passkey'], T);
    expect(p).toEqual({ password: T, totp: T + MIN, passkey: T });
    expect(Object.isFrozen(p)).toBe(true);
  });

  it('reports the latest proof as auth_time, and nothing for nothing', () => {
    expect(lastProven({ password: T, totp: T + 5 * MIN })).toBe(T + 5 * MIN);
    expect(lastProven({})).toBeNull();
  });

  it('names the RFC 8176 methods and the context class of each combination', () => {
    expect([amrOf({ password: T }), acrOf({ password: T })]).toEqual([['pwd'], 'sfa']);
    expect([amrOf({ password: T, totp: T }), acrOf({ password: T, totp: T })]).toEqual([['pwd', 'otp', 'mfa'], 'mfa']);
    expect([amrOf({ passkey: T }), acrOf({ passkey: T })]).toEqual([['hwk', 'user', 'mfa'], 'phr']);
    expect([amrOf({ oauth: T }), acrOf({ oauth: T })]).toEqual([['fed'], 'sfa']);
    expect(acrOf({ totp: T })).toBe('sfa');
  });
});

describe('a per-path requirement', () => {
  it('is met by a second factor of any kind when it names none', () => {
    expect(checkRequirement(need({ secondFactor: true }), session({ password: T, totp: T }), T).kind).toBe('met');
    expect(checkRequirement(need({ secondFactor: true }), session({ passkey: T }), T).kind).toBe('met');
    expect(checkRequirement(need({ secondFactor: true }), session({ password: T }), T)).toEqual({ kind: 'step_up', methods: ['totp', 'passkey'] });
  });

  it('naming passkey is never met by a fresh TOTP code or password, and asks for the passkey', () => {
    const req = need({ methods: ['passkey'], maxAgeMs: 10 * MIN });
    expect(checkRequirement(req, session({ password: T, totp: T }), T)).toEqual({ kind: 'step_up', methods: ['passkey'] });
    expect(checkRequirement(req, session({ password: T, totp: T, passkey: T - 5 * MIN }), T).kind).toBe('met');
  });

  it('counts max_age to the millisecond: at the bound it is met, one past it a step-up is asked', () => {
    const req = need({ secondFactor: true, maxAgeMs: 600_000 });
    expect(checkRequirement(req, session({ password: T - 600_000, totp: T - 600_000 }), T).kind).toBe('met');
    expect(checkRequirement(req, session({ password: T - 600_001, totp: T - 600_001 }), T)).toEqual({ kind: 'step_up', methods: ['totp', 'passkey'] });
  });

  it('asks an old password-and-TOTP session only for a code when a second factor must be recent', () => {
    const req = need({ secondFactor: true, methods: ['totp'], maxAgeMs: 600_000 });
    expect(checkRequirement(req, session({ password: T - 3_600_000, totp: T - 3_600_000 }), T)).toEqual({ kind: 'step_up', methods: ['totp'] });
  });

  it('is met by a token or a JWT only where it names them and asks for no second factor; never by Basic', () => {
    expect(checkRequirement(need({ methods: ['token'] }), { kind: 'token' }, T).kind).toBe('met');
    expect(checkRequirement(need({ methods: ['token'], secondFactor: true }), { kind: 'token' }, T).kind).toBe('impossible');
    expect(checkRequirement(need({ methods: ['password'] }), { kind: 'token' }, T).kind).toBe('impossible');
    expect(checkRequirement(need({ methods: ['jwt'] }), { kind: 'jwt' }, T).kind).toBe('met');
    expect(checkRequirement(need({ methods: ['jwt'] }), { kind: 'token' }, T).kind).toBe('impossible');
    expect(checkRequirement(need({ methods: ['password'] }), { kind: 'basic' }, T).kind).toBe('impossible');
    expect(checkRequirement(need({}), { kind: 'basic' }, T).kind).toBe('impossible');
  });

  it('cannot be met by a session when it names only methods a login page cannot ask again', () => {
    expect(checkRequirement(need({ methods: ['token'] }), session({ password: T }), T).kind).toBe('impossible');
    expect(checkRequirement(need({ methods: ['oauth'], maxAgeMs: MIN }), session({ oauth: T - 2 * MIN }), T).kind).toBe('impossible');
    expect(checkRequirement(need({ methods: ['oauth'] }), session({ oauth: T }), T).kind).toBe('met');
  });

  it('asks a session that proved nothing recorded (a cookie from before) for a step-up', () => {
    expect(checkRequirement(need({ secondFactor: true }), session({}), T).kind).toBe('step_up');
  });
});
