import type { LoginRequired } from '../../application/forward-auth/login-targets';
import { ASSERTION_HEADER } from '../../domain/identity-assertion';
import type { Identity } from '../../domain/session';
import { BoundedMemo } from '../state/bounded-map';
import type { Answer, HeaderPair } from './answer';
import { forwardAuthAllowed, forwardAuthRefused, type ForwardAuthContext } from './answers';
import { printableHeaderValue } from './header-value';
import { OUTCOME, type ForwardAuthOutcome, type ProxyIndex } from './http-metrics';

/** The answer to one forward-auth request, and what its metrics record. */
export interface ForwardAuthDecision {
  readonly answer: Answer;
  readonly proxyIndex: ProxyIndex;
  readonly outcome: ForwardAuthOutcome;
}

/** Answers with an assertion kept at most (identity × application × proxy in use), and login refusals per context. */
const MAX_ASSERTED = 4096;
const LOGIN_REFUSALS_MAX = 256;
/** The longest return target whose refusal is kept (the longest URL LoginTargetMemo keeps). */
const LOGIN_REFUSAL_TARGET_MAX_LENGTH = 1024;
/** Answers per proxy index (0 to 2), then their minimal forms (`Prefer: return=minimal`) from index 4. */
const MINIMAL_SLOTS = 4;
type Slots = ForwardAuthDecision[];

/** An identity's cleaned headers and its allowed answers, by slot. */
interface IdentityAnswers {
  readonly headers: readonly HeaderPair[];
  readonly slots: Slots;
}

/** The answers for one assertion, with the identity and rules' headers they were built from. */
interface AssertedAnswers {
  readonly identity: Identity;
  readonly policy: Readonly<Record<string, string>>;
  readonly slots: Slots;
}

/** The browser and API contexts of one proxy. */
export interface ProxyContexts {
  readonly browser: ForwardAuthContext;
  readonly api: ForwardAuthContext;
}

/** The identity headers for the upstream, cleaned of control and non-printable characters. */
function cleanIdentityHeaders(identity: Identity): readonly HeaderPair[] {
  const out: HeaderPair[] = [
    ['remote-user', printableHeaderValue(identity.username)],
    ['remote-name', printableHeaderValue(identity.name)],
    ['remote-email', printableHeaderValue(identity.email)],
  ];
  if (identity.groups.length > 0) out.push(['remote-groups', printableHeaderValue(identity.groups.join(','))]);
  return Object.freeze(out);
}

const slotOf = (known: ProxyIndex, minimal: boolean): number => known + (minimal ? MINIMAL_SLOTS : 0);

/**
 * The forward-auth answers handed out again rather than built per request (ADR 0040), under one
 * rule: an answer is kept only under a key that holds everything it is built from, so nothing in
 * here is ever stale and nothing needs invalidating. These remember how a decision is written,
 * never the decision: the use case still unseals the cookie, checks its revocation, re-reads the
 * account and its credential, the lock and the rules on every request, and only then asks here.
 * A logout, a password change, a group change or a rules reload therefore changes which entry is
 * asked for (or that none is), never what an entry says.
 */
export class ForwardAuthAnswerCache {
  /**
   * Allowed answers by identity object. Identities are frozen and made once per account version
   * (RequestAuthenticator's account views) or per opened cookie (the sealer's cache), so a changed
   * account brings a new identity and a new entry. Bounded by its keys' lifetime (a WeakMap): an
   * entry goes when its identity is no longer held by an account view or an opened cookie.
   */
  private readonly identities = new WeakMap<Identity, IdentityAnswers>();
  private readonly anonymous: Slots = [];
  /**
   * Answers with an assertion, by the token (whose text names the audience and the identity; the
   * signer reuses it for minutes, ADR 0030). The rules' headers are part of the answer too: an entry
   * holds for the identity and headers object it was built with, and the policy hands out new header
   * objects at each reload, so a reload replaces the entry at the next request. At most 4 096 tokens,
   * emptied when full (renewed tokens replace old ones every few minutes).
   */
  private readonly assertions = new BoundedMemo<string, AssertedAnswers>(MAX_ASSERTED);
  /**
   * The refusal of a request without a login, per context (gateway × proxy × browser or API) and
   * return target: the answer says nothing of the caller but the page it asked for. At most 256
   * targets of at most 1 024 characters per context, emptied when full; contexts are fixed.
   */
  private readonly loginRefusals: ReadonlyArray<
    ReadonlyArray<{ browser: BoundedMemo<string | null, ForwardAuthDecision>; api: BoundedMemo<string | null, ForwardAuthDecision> }>
  >;

  /** `gateways[0]` is the primary's contexts by proxy index, then each secondary domain's (issue 17). */
  constructor(private readonly gateways: ReadonlyArray<readonly ProxyContexts[]>) {
    this.loginRefusals = gateways.map((byProxy) =>
      byProxy.map(() => ({
        browser: new BoundedMemo<string | null, ForwardAuthDecision>(LOGIN_REFUSALS_MAX, LOGIN_REFUSAL_TARGET_MAX_LENGTH),
        api: new BoundedMemo<string | null, ForwardAuthDecision>(LOGIN_REFUSALS_MAX, LOGIN_REFUSAL_TARGET_MAX_LENGTH),
      })),
    );
  }

  /** Identity headers for the upstream, then the policy's. Incoming `Remote-*` headers are never copied: only these are set. */
  allowed(identity: Identity | null, policy: Readonly<Record<string, string>>, known: ProxyIndex, minimal: boolean): ForwardAuthDecision {
    const cached = identity === null ? null : this.identityAnswers(identity);
    let extra: HeaderPair[] | null = null;
    // Headers the rules add make a fresh array and a fresh answer, never kept.
    for (const name in policy) (extra ??= [...(cached?.headers ?? [])]).push([name.toLowerCase(), printableHeaderValue(policy[name])]);
    if (extra !== null) return { answer: forwardAuthAllowed(extra, minimal), proxyIndex: known, outcome: OUTCOME.allowed };
    const slots = cached === null ? this.anonymous : cached.slots;
    return (slots[slotOf(known, minimal)] ??= Object.freeze({
      answer: forwardAuthAllowed(cached?.headers ?? null, minimal),
      proxyIndex: known,
      outcome: OUTCOME.allowed,
    }));
  }

  /** The allowed answer with the assertion added after the identity's and the rules' headers. */
  asserted(identity: Identity | null, policy: Readonly<Record<string, string>>, known: ProxyIndex, assertion: string, minimal: boolean): ForwardAuthDecision {
    // Keyed by the signer's own cached string, whose hash V8 keeps: no per-request concatenation.
    let entry = this.assertions.get(assertion);
    if (entry === undefined || entry.identity !== identity || entry.policy !== policy) {
      // An assertion is only ever made for someone (the use case's rule), so identity is not null here.
      entry = this.assertions.remember(assertion, { identity: identity as Identity, policy, slots: [] });
    }
    const slot = slotOf(known, minimal);
    let made = entry.slots[slot];
    if (made === undefined) {
      const headers = [
        ...(this.allowed(identity, policy, known, false).answer.headers ?? []),
        [ASSERTION_HEADER, printableHeaderValue(assertion)] as HeaderPair,
      ];
      made = entry.slots[slot] = Object.freeze({ answer: forwardAuthAllowed(headers, minimal), proxyIndex: known, outcome: OUTCOME.allowed });
    }
    return made;
  }

  /** The refusal of a request without a login: to the login of the gateway whose domain holds the target. */
  loginRequired(error: LoginRequired, known: ProxyIndex, apiMode: boolean): ForwardAuthDecision {
    const gateway = error.secondary !== undefined && this.gateways[error.secondary + 1] !== undefined ? error.secondary + 1 : 0;
    const memo = apiMode ? this.loginRefusals[gateway][known].api : this.loginRefusals[gateway][known].browser;
    const refused = memo.get(error.returnTo);
    if (refused !== undefined) return refused;
    const context = apiMode ? this.gateways[gateway][known].api : this.gateways[gateway][known].browser;
    return memo.remember(
      error.returnTo,
      Object.freeze({ answer: Object.freeze(forwardAuthRefused(error, context)), proxyIndex: known, outcome: OUTCOME.unauthenticated }),
    );
  }

  private identityAnswers(identity: Identity): IdentityAnswers {
    let answers = this.identities.get(identity);
    if (answers === undefined) {
      answers = { headers: cleanIdentityHeaders(identity), slots: [] };
      this.identities.set(identity, answers);
    }
    return answers;
  }
}
