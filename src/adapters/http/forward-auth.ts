import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPending, type Awaitable } from '../../application/ports/awaitable';
import type {
  AuthorizeProxyRequestError,
  AuthorizeProxyRequestOutput,
  AuthorizeProxyRequestUseCase,
} from '../../application/forward-auth/authorize-proxy-request';
import type { Result } from '../../domain/result';
import type { ProxyKind } from '../../domain/forwarded-request';
import { forwardAuthRefused, INTERNAL_ERROR, SEVERAL_SESSION_COOKIES, UNKNOWN_PROXY } from './answers';
import { ForwardAuthAnswerCache, type ForwardAuthDecision, type ProxyContexts } from './forward-auth-answer-cache';
import { NO_METRICS, OUTCOME, type ForwardAuthOutcome, type ProxyIndex } from './http-metrics';
import type { HttpSettings } from './http-settings';
import { instrumentation } from './instrumentation';
import { writeAnswer } from './raw-renderer';
import { REQUEST_ID_HEADER } from './request-id';
import { prefersMinimalAnswer, readForwardAuthFacts } from './request-facts';
import { HANDOFF_START_PATH } from './handoff-paths';
import { JwtBearers } from './jwt-bearer';
import { SESSION_COOKIE, setCookie } from './cookies';
import { gatewayIndexOfHost } from '../../domain/gateway-domains';

const PREFIX = '/api/auth/';
/** The proxy kind per index (its ProxyIndex), so the use case gets the constant, not the slice of the URL. */
const KINDS: readonly ProxyKind[] = ['traefik', 'nginx', 'caddy'];
const UNKNOWN_PROXY_INDEX: ProxyIndex = 3;

/** What the metrics of one forward-auth request need, filled in as it goes. */
interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly head: boolean;
  proxyIndex: ProxyIndex;
  outcome: ForwardAuthOutcome;
}

/** The metrics outcome of each refusal; a new code is a compile error until it has one. */
const OUTCOMES: Readonly<Record<AuthorizeProxyRequestError['code'], ForwardAuthOutcome>> = {
  unauthenticated: OUTCOME.unauthenticated,
  forbidden: OUTCOME.forbidden,
  bad_forwarded_headers: OUTCOME.badRequest,
  ambiguous_path: OUTCOME.badRequest,
  account_locked: OUTCOME.locked,
  store_unavailable: OUTCOME.unavailable,
  invalid_token: OUTCOME.unauthenticated,
  step_up_required: OUTCOME.unauthenticated,
};

/** True for the paths the forward-auth handler answers. */
export function isForwardAuthPath(url: string | undefined): boolean {
  return url !== undefined && url.startsWith(PREFIX);
}

/**
 * A forward-auth answer straight on the Node response. Returns nothing when it answered at once
 * (every store answered from memory), else a promise that resolves once it has been written;
 * never throws, never rejects.
 */
export type ForwardAuthHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

export type { ForwardAuthDecision } from './forward-auth-answer-cache';

/**
 * The proxy a forward-auth path names, by index; UNKNOWN_PROXY_INDEX (3) for any other. The name is
 * compared where it stands in the URL: a slice of it would be a new string per request, hashed
 * again for a Map.
 */
export function proxyIndexOf(url: string | undefined): ProxyIndex {
  if (url === undefined || !url.startsWith(PREFIX)) return UNKNOWN_PROXY_INDEX;
  const q = url.indexOf('?', PREFIX.length);
  const length = (q === -1 ? url.length : q) - PREFIX.length;
  for (let i = 0; i < KINDS.length; i += 1) if (KINDS[i].length === length && url.startsWith(KINDS[i], PREFIX.length)) return i as ProxyIndex;
  return UNKNOWN_PROXY_INDEX;
}

/**
 * Reads a forward-auth request (its proxy from `proxyIndexOf`), asks the use case and maps its
 * result to the answer, for any renderer to write: at once when the use case answered at once.
 */
export type ForwardAuthDecider = (req: IncomingMessage, proxyIndex: ProxyIndex, requestId: string) => Awaitable<ForwardAuthDecision>;

export function forwardAuthDecider(
  useCase: AuthorizeProxyRequestUseCase,
  settings: Pick<HttpSettings, 'appUrl' | 'clientAddress' | 'gateways' | 'jwtIssuers'> & Partial<Pick<HttpSettings, 'cookies'>>,
): ForwardAuthDecider {
  const contextsFor = (loginUrl: string): ProxyContexts[] =>
    KINDS.map((proxy) => ({
      browser: { proxy, apiMode: false, loginUrl, unauthorizedUrl: `${settings.appUrl}/unauthorized` },
      api: { proxy, apiMode: true, loginUrl, unauthorizedUrl: `${settings.appUrl}/unauthorized` },
    }));
  const contexts = contextsFor(`${settings.appUrl}/login`);
  const jwtBearers = new JwtBearers(new Set(settings.jwtIssuers ?? []));
  // Issue 17: an application inside a secondary domain logs in through that domain's hand-off start.
  const handoffContexts = (settings.gateways ?? []).slice(1).map((g) => contextsFor(`${g.url}${HANDOFF_START_PATH}`));
  // Every answer kept for another request, and why none of them can be stale: ADR 0040.
  const answers = new ForwardAuthAnswerCache([contexts, ...handoffContexts]);
  const unknownProxy: ForwardAuthDecision = Object.freeze({ answer: UNKNOWN_PROXY, proxyIndex: UNKNOWN_PROXY_INDEX, outcome: OUTCOME.badRequest });
  // Two session cookies: the proxy would hand the application whichever copy it does not cut out,
  // so no decision is made on either (review item 6; docs/security.md).
  const severalCookies = KINDS.map((_, i): ForwardAuthDecision =>
    Object.freeze({ answer: SEVERAL_SESSION_COOKIES, proxyIndex: i as ProxyIndex, outcome: OUTCOME.badRequest }),
  );

  const decision = (
    result: Result<AuthorizeProxyRequestOutput, AuthorizeProxyRequestError>,
    known: ProxyIndex,
    apiMode: boolean,
    minimal: boolean,
  ): ForwardAuthDecision => {
    if (result.ok) {
      const { identity, headers, assertion, renewed } = result.value;
      const allowed =
        assertion === undefined ? answers.allowed(identity, headers, known, minimal) : answers.asserted(identity, headers, known, assertion, minimal);
      return renewed === undefined ? allowed : withRenewedCookie(allowed, renewed, settings);
    }
    const error = result.error;
    if (error.code === 'unauthenticated') return answers.loginRequired(error, known, apiMode);
    const context = apiMode ? contexts[known].api : contexts[known].browser;
    return { answer: forwardAuthRefused(error, context), proxyIndex: known, outcome: OUTCOMES[error.code] };
  };

  return (req, known, requestId) => {
    if (known === UNKNOWN_PROXY_INDEX) return unknownProxy;
    const facts = readForwardAuthFacts(req, KINDS[known], requestId, settings.clientAddress, jwtBearers);
    if (facts.severalSessionCookies) return severalCookies[known];
    // Only an allowed answer is ever minimal: a refusal goes on to the client, body and all.
    const minimal = prefersMinimalAnswer(req);
    const result = useCase.execute(facts);
    return isPending(result) ? result.then((r) => decision(r, known, facts.apiMode, minimal)) : decision(result, known, facts.apiMode, minimal);
  };
}

/**
 * An allowed answer that also sets the cookie of the session it renewed (issue 33), for the proxy
 * to pass on to the browser (docs/proxies.md shows how each does). The cookie is the one of the
 * gateway domain holding the application's host; an application in none of them gets no cookie
 * (its browser holds no session cookie of ours to renew). Never kept: it is one session's.
 */
function withRenewedCookie(
  allowed: ForwardAuthDecision,
  renewed: NonNullable<AuthorizeProxyRequestOutput['renewed']>,
  settings: Pick<HttpSettings, 'gateways'> & Partial<Pick<HttpSettings, 'cookies'>>,
): ForwardAuthDecision {
  const gateways = settings.gateways ?? [];
  let cookies: HttpSettings['cookies'] | undefined = settings.cookies;
  if (gateways.length > 1) {
    const i =
      renewed.host === null
        ? -1
        : gatewayIndexOfHost(
            gateways.map((g) => g.cookies.domain),
            renewed.host,
          );
    cookies = i === -1 ? undefined : gateways[i].cookies;
  }
  if (cookies === undefined) return allowed;
  return { ...allowed, answer: { ...allowed.answer, cookies: [setCookie(SESSION_COOKIE, renewed.token, renewed.maxAgeMs / 1000, cookies)] } };
}

/**
 * `/api/auth/:proxy`, the hot path, answered straight on the Node response with precomputed
 * bodies: Koa's response machinery costs a third of the throughput here (see PERFORMANCE.md). The
 * gateway's listeners call this before Koa sees the request; Koa never serves these paths.
 * Any method is answered, since nginx's `auth_request` asks with the original request's method.
 * Call it only for paths where `isForwardAuthPath` holds.
 */
export function forwardAuthHandler(useCase: AuthorizeProxyRequestUseCase, settings: HttpSettings): ForwardAuthHandler {
  const metrics = settings.metrics ?? NO_METRICS;
  const decide = forwardAuthDecider(useCase, settings);
  const write = (x: Exchange, decision: ForwardAuthDecision, requestId: string): void => {
    x.outcome = decision.outcome;
    writeAnswer(x.res, decision.answer, requestId, x.head);
  };
  // Synchronous from request to answer when the use case answers at once: each promise and
  // microtask on this path cost the whole gateway measurable throughput (docs/benchmark.md, change 16).
  const serve = (x: Exchange, requestId: string): Promise<void> | void => {
    x.proxyIndex = proxyIndexOf(x.req.url);
    const decision = decide(x.req, x.proxyIndex, requestId);
    if (isPending(decision)) return decision.then((d) => write(x, d, requestId));
    write(x, decision, requestId);
  };

  // Nothing may escape: the server's listener does not wait for this promise.
  const instrumented = instrumentation<Exchange>(settings.logger, {
    failure: 'forward auth failed',
    internalError(x, requestId) {
      x.outcome = OUTCOME.error;
      if (!x.res.headersSent) writeAnswer(x.res, INTERNAL_ERROR, requestId, x.head);
      else x.res.destroy();
    },
    abort(x) {
      x.outcome = OUTCOME.error;
      x.res.destroy();
    },
    finished(x, _requestId, seconds) {
      metrics.forwardAuth(x.proxyIndex, x.outcome, seconds);
    },
  });

  return (req, res) =>
    instrumented({ req, res, head: req.method === 'HEAD', proxyIndex: UNKNOWN_PROXY_INDEX, outcome: OUTCOME.error }, req.headers[REQUEST_ID_HEADER], serve);
}
