import { createHash } from 'node:crypto';
import type { Account } from '../../src/domain/account';
import type { AccessDecision, AccessPolicy, AccessRequest } from '../../src/application/forward-auth/access-policy';
import type { AuditEvent, AuditLog } from '../../src/application/ports/audit-log';
import type { Awaitable } from '../../src/application/ports/awaitable';
import type { Clock } from '../../src/application/ports/clock';
import type { IdGenerator } from '../../src/application/ports/id-generator';
import type { PasswordHasher } from '../../src/application/ports/password-hasher';
import type { TotpVerifier } from '../../src/application/ports/totp-verifier';
import { UserStoreUnavailableError, type UserStore } from '../../src/application/ports/user-store';
import { OAuthProviderError, type OAuthIdentity, type OAuthProvider, type OAuthProviderFailure } from '../../src/application/ports/oauth-provider';
import type { OAuthProviders } from '../../src/application/ports/oauth-providers';
import type { IssuerExpectation, OAuthProviderKind } from '../../src/domain/oauth-flow';

/** A clock that moves only when told to. */
export class FixedClock implements Clock {
  constructor(private ms = Date.UTC(2026, 0, 1, 12, 0, 0)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}

/** "Hashes" by prefixing, so tests stay fast; counts decoy checks to prove unknown users cost the same work. */
export class FakePasswordHasher implements PasswordHasher {
  decoys = 0;
  verifications = 0;
  /** Who asked for each check (verify and decoy), in order. */
  readonly requesters: Array<string | undefined> = [];
  async verify(password: string, hash: string, requester?: string): Promise<boolean> {
    this.verifications += 1;
    this.requesters.push(requester);
    return hash === `fake:${password}`;
  }
  async hash(password: string): Promise<string> {
    return `fake:${password}`;
  }
  async verifyDecoy(_password?: string, requester?: string): Promise<false> {
    this.decoys += 1;
    this.verifications += 1;
    this.requesters.push(requester);
    return false;
  }
}

/** Accounts in a list; `down` makes every call fail as an unreachable store would. */
export class FakeUserStore implements UserStore {
  down = false;
  constructor(
    private accounts: Account[],
    private readonly hasher: PasswordHasher = new FakePasswordHasher(),
  ) {}
  replace(accounts: Account[]): void {
    this.accounts = accounts;
  }
  /** true: the lookups answer at once (throw at once when down), as a store in this process's memory does. */
  atOnce = false;
  findAccount(login: string): Awaitable<Account | null> {
    return this.lookup(() => {
      const l = login.trim().toLowerCase();
      return this.accounts.find((a) => a.username.toLowerCase() === l || a.email.toLowerCase() === l) ?? null;
    });
  }
  private lookup(find: () => Account | null): Awaitable<Account | null> {
    const answer = (): Account | null => {
      if (this.down) throw new UserStoreUnavailableError('fake');
      return find();
    };
    if (this.atOnce) return answer();
    try {
      return Promise.resolve(answer());
    } catch (e) {
      return Promise.reject(e);
    }
  }
  async verifyPassword(account: Account, password: string, requester?: string): Promise<boolean> {
    if (this.down) throw new UserStoreUnavailableError('fake');
    const known = this.accounts.find((a) => a.username === account.username);
    return known !== undefined && this.hasher.verify(password, known.credentialVersion, requester);
  }
  async verifyDecoy(_login: string, password: string, requester?: string): Promise<false> {
    if (this.down) throw new UserStoreUnavailableError('fake');
    return this.hasher.verifyDecoy(password, requester);
  }
  currentAccount(username: string): Awaitable<Account | null> {
    return this.lookup(() => this.accounts.find((a) => a.username.toLowerCase() === username.toLowerCase()) ?? null);
  }
}

/**
 * TOTP without cryptography: the code for a step is `(step * 7919 + checksum(secret)) mod 10^6`, so
 * codes still depend on the secret and the step. Accepts one step of drift either way, as the port demands.
 */
export class FakeTotpVerifier implements TotpVerifier {
  /** Codes checked so far (every call, whatever its outcome). */
  verifications = 0;
  /** The code the fake accepts for `secret` at `nowMs`, shifted by `offsetSteps` time steps. */
  static codeAt(secret: string, nowMs: number, offsetSteps = 0): string {
    return FakeTotpVerifier.codeForStep(secret, Math.floor(nowMs / 30_000) + offsetSteps);
  }

  private static codeForStep(secret: string, step: number): string {
    let checksum = 0;
    for (let i = 0; i < secret.length; i += 1) checksum = (checksum * 31 + secret.charCodeAt(i)) % 1_000_003;
    return String((step * 7919 + checksum) % 1_000_000).padStart(6, '0');
  }

  async verify(secret: string, code: string, nowMs: number): Promise<number | null> {
    this.verifications += 1;
    // The same refusals as the real verifier: six ASCII digits, a base32 secret of at least 80 bits.
    if (!/^[0-9]{6}$/.test(code) || !/^[A-Z2-7]{16,}=*$/.test(secret)) return null;
    const step = Math.floor(nowMs / 30_000);
    for (const s of [step - 1, step, step + 1]) if (FakeTotpVerifier.codeForStep(secret, s) === code) return s;
    return null;
  }
}

export class SequentialIds implements IdGenerator {
  private n = 0;
  next(): string {
    this.n += 1;
    return `id-${this.n}`;
  }
}

export class RecordingAuditLog implements AuditLog {
  readonly events: AuditEvent[] = [];
  record(event: AuditEvent): void {
    this.events.push(event);
  }
}

/**
 * An OAuth provider that knows codes by heart: `codes.set('c1', identity)`, or `issue(url, identity)`
 * to bind a code to the URL's PKCE challenge as a real provider does. Codes work once. Records
 * each exchange; `failWith` makes every exchange fail as a real provider might.
 */
export class FakeOAuthProvider implements OAuthProvider {
  readonly codes = new Map<string, OAuthIdentity>();
  private readonly challenges = new Map<string, string>();
  private issued = 0;
  readonly exchanges: { code: string; codeVerifier: string; redirectUri: string }[] = [];
  failWith: OAuthProviderFailure | null = null;
  throwUnexpected = false;
  /** What `issuer()` answers (RFC 9207); by default an issuer that does not promise `iss`. */
  issuerExpectation: IssuerExpectation;
  readonly kind: OAuthProviderKind;
  readonly name: string;

  constructor(readonly id: string = 'generic') {
    this.kind = id === 'github' || id === 'google' ? id : 'generic';
    this.name = id;
    this.issuerExpectation = { issuer: `https://${id}.provider.test`, required: false };
  }

  async issuer(): Promise<IssuerExpectation> {
    if (this.failWith === 'unreachable') throw new OAuthProviderError(this.id, 'unreachable');
    return this.issuerExpectation;
  }

  async authorizationUrl(input: { state: string; codeChallenge: string; redirectUri: string }): Promise<string> {
    const q = new URLSearchParams({
      response_type: 'code',
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: 'S256',
      redirect_uri: input.redirectUri,
    });
    return `https://${this.id}.provider.test/authorize?${q.toString()}`;
  }

  async identify(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<OAuthIdentity> {
    this.exchanges.push(input);
    if (this.throwUnexpected) throw new TypeError('bug');
    if (this.failWith !== null) throw new OAuthProviderError(this.id, this.failWith);
    const identity = this.codes.get(input.code);
    const challenge = this.challenges.get(input.code);
    this.codes.delete(input.code);
    this.challenges.delete(input.code);
    if (identity === undefined) throw new OAuthProviderError(this.id, 'refused');
    if (challenge !== undefined && createHash('sha256').update(input.codeVerifier).digest('base64url') !== challenge) {
      throw new OAuthProviderError(this.id, 'refused');
    }
    return identity;
  }

  /** Plays the authorization step: a fresh code for `identity`, bound to the URL's code challenge. */
  issue(authorizationUrl: string, identity: OAuthIdentity): string {
    const code = `issued-${(this.issued += 1)}`;
    this.codes.set(code, identity);
    this.challenges.set(code, new URL(authorizationUrl).searchParams.get('code_challenge') ?? '');
    return code;
  }
}

export class FakeOAuthProviders implements OAuthProviders {
  constructor(private readonly providers: OAuthProvider[]) {}
  get(id: string): OAuthProvider | null {
    return this.providers.find((p) => p.id === id) ?? null;
  }
  ids(): readonly string[] {
    return this.providers.map((p) => p.id);
  }
}

/** Answers every request with `decision` (or asks the function) and keeps what it was asked. */
export class ScriptedAccessPolicy implements AccessPolicy {
  readonly requests: AccessRequest[] = [];
  constructor(private readonly decision: AccessDecision | ((request: AccessRequest) => AccessDecision)) {}
  decide(request: AccessRequest): AccessDecision {
    this.requests.push(request);
    return typeof this.decision === 'function' ? this.decision(request) : this.decision;
  }
}
