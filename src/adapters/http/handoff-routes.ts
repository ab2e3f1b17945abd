import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { IssueHandoffCodeUseCase, IssueHandoffCodeError } from '../../application/handoff/issue-handoff-code';
import type { RedeemHandoffCodeError, RedeemHandoffCodeUseCase } from '../../application/handoff/redeem-handoff-code';
import { safeRedirectTarget } from '../../domain/redirect-target';
import { answer, fixed, type Answer } from './answer';
import { STORE_UNAVAILABLE, unmapped } from './answers';
import { clearCookie, readCookie, SESSION_COOKIE, setCookie, type CookieSettings } from './cookies';
import { gatewayHostsOf, gatewayIndexOf, type GatewayHost } from './gateway-hosts';
import { HANDOFF_ISSUE_PATH, HANDOFF_REDEEM_PATH, HANDOFF_START_PATH, handoffStateCookie } from './handoff-paths';
import { header } from './header-access';
import type { HttpSettings } from './http-settings';
import { callerOf, koaFacts, queryParam } from './koa-facts';
import { renderAnswer } from './koa-renderer';

/** The use cases of the hand-off between gateway domains (issue 17). */
export interface HandoffUseCases {
  readonly issueHandoffCode: IssueHandoffCodeUseCase;
  readonly redeemHandoffCode: RedeemHandoffCodeUseCase;
}

/** How long a started hand-off may take, login on the primary included, before its state cookie is gone. */
const STATE_LIFETIME_SECONDS = 600;
const HOST_ONLY = { hostOnly: true } as const;
/** The code must not reach the application through a Referer, nor be kept in a cache. */
const NO_REFERRER: readonly (readonly [string, string])[] = [['referrer-policy', 'no-referrer']];

const NOT_HERE = fixed(404, 'handoff_not_here');
const INVALID_REDIRECT = fixed(400, 'handoff_invalid_redirect');

function redirect(location: string, cookies: readonly string[] = []): Answer {
  return answer(302, 'redirecting', [], { headers: [['location', location], ...NO_REFERRER], cookies });
}

/** `/api/handoff/issue` refused (a login it asks for first is a redirect, not a refusal). */
export function handoffIssueRefused(error: IssueHandoffCodeError): Answer {
  switch (error.code) {
    case 'unknown_domain':
      return answer(400, 'handoff_unknown_domain', []);
    case 'invalid_redirect':
      return INVALID_REDIRECT;
    case 'invalid_state':
      return answer(400, 'handoff_invalid_state', []);
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    case 'login_required':
      throw new Error('login_required is answered with a redirect');
    default:
      return unmapped('handoff issue', error);
  }
}

/** `/api/handoff/redeem` refused: every unusable code alike, and the code kept out of any Referer. */
export function handoffRedeemRefused(error: RedeemHandoffCodeError): Answer {
  switch (error.code) {
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    case 'invalid_code':
      return answer(400, 'handoff_invalid_code', [], { headers: NO_REFERRER });
    default:
      return unmapped('handoff redeem', error);
  }
}

/**
 * `/api/handoff/*`: one login for several root domains (issue 17). A secondary gateway URL starts
 * (`start`: binds the browser with a host-only state cookie, sends it to the primary), the primary
 * vouches (`issue`: a single-use code, or its login page first), the secondary redeems (`redeem`:
 * its own cookie with the same session, then the original URL). Nothing but the code and the
 * state, neither of them a credential on its own, travels in a URL.
 */
export function handoffRoutes(router: Router, useCases: HandoffUseCases, settings: HttpSettings): void {
  const hosts = gatewayHostsOf(settings);
  const primary = hosts[0];
  const facts = (ctx: Context) => koaFacts(ctx, settings.clientAddress);
  /** The secondary (index ≥ 1) this request was made to, or null when it came to the primary or an unknown host. */
  const secondaryOf = (ctx: Context): { index: number; host: GatewayHost } | null => {
    const index = gatewayIndexOf(hosts, ctx);
    return index === 0 ? null : { index, host: hosts[index] };
  };

  router.get('/handoff/start', (ctx) => {
    const secondary = secondaryOf(ctx);
    if (secondary === null) return renderAnswer(ctx, NOT_HERE);
    const domain = secondary.host.cookies.domain;
    const target = safeRedirectTarget(queryParam(ctx, 'redirect_uri'), domain);
    if (target === null) return renderAnswer(ctx, INVALID_REDIRECT);
    // A state of its own for every hand-off, never one the browser already holds: a value that
    // outlives its hand-off is one more thing to leak or plant (issue 29, item 11). Two tabs that
    // start at once: the later start wins, the other tab's redemption is refused and it starts anew.
    const state = randomBytes(32).toString('base64url');
    const params = new URLSearchParams({ domain: domain.domain, state, redirect_uri: target });
    renderAnswer(
      ctx,
      redirect(`${primary.url}${HANDOFF_ISSUE_PATH}?${params.toString()}`, [
        setCookie(handoffStateCookie(secondary.host.cookies.secure), state, STATE_LIFETIME_SECONDS, secondary.host.cookies, HOST_ONLY),
      ]),
    );
  });

  router.get('/handoff/issue', async (ctx) => {
    if (secondaryOf(ctx) !== null) return renderAnswer(ctx, NOT_HERE);
    const input = {
      ...callerOf(ctx, settings.clientAddress),
      domain: queryParam(ctx, 'domain'),
      state: queryParam(ctx, 'state'),
      redirectUri: queryParam(ctx, 'redirect_uri'),
    };
    const result = await useCases.issueHandoffCode.execute(input);
    if (result.ok) {
      const to = hosts[result.value.secondary + 1];
      return renderAnswer(ctx, redirect(`${to.url}${HANDOFF_REDEEM_PATH}?code=${encodeURIComponent(result.value.code)}`));
    }
    if (result.error.code === 'login_required') {
      // Log in here (any method), then the login page continues to this very URL, rebuilt from the checked values.
      const again = new URLSearchParams({ domain: String(input.domain), state: String(input.state), redirect_uri: String(input.redirectUri) });
      const back = `${primary.url}${HANDOFF_ISSUE_PATH}?${again.toString()}`;
      return renderAnswer(ctx, redirect(`${primary.url}/login?redirect_uri=${encodeURIComponent(back)}`));
    }
    renderAnswer(ctx, handoffIssueRefused(result.error));
  });

  router.get('/handoff/redeem', async (ctx) => {
    const secondary = secondaryOf(ctx);
    if (secondary === null) return renderAnswer(ctx, NOT_HERE);
    const { ip, requestId } = facts(ctx);
    const cookies: CookieSettings = secondary.host.cookies;
    const stateCookie = handoffStateCookie(cookies.secure);
    const state = readCookie(header(ctx.req.headers, 'cookie'), stateCookie);
    const result = await useCases.redeemHandoffCode.execute({ code: queryParam(ctx, 'code'), secondary: secondary.index - 1, state, ip, requestId });
    if (!result.ok) return renderAnswer(ctx, handoffRedeemRefused(result.error));
    renderAnswer(
      ctx,
      redirect(result.value.redirectTarget, [
        setCookie(SESSION_COOKIE, result.value.sessionToken, result.value.maxAgeMs / 1000, cookies),
        // Spent: the state bound this one hand-off.
        clearCookie(stateCookie, cookies, HOST_ONLY),
      ]),
    );
  });
}

/** The login pages, which belong to the primary: on a secondary they start a hand-off instead. */
const LOGIN_PAGES: ReadonlySet<string> = new Set(['/login', '/totp']);

/**
 * Issue 17: the login UI stays on the primary (every login method, OAuth callbacks included,
 * works there). A login page asked on a secondary gateway URL (say, after a logout there) starts
 * that domain's hand-off, which logs in on the primary and comes back with this domain's cookie:
 * to the page's `redirect_uri` when it lies inside this domain, else to this domain's account page.
 */
export function secondaryLoginPages(settings: HttpSettings): Middleware {
  const hosts = gatewayHostsOf(settings);
  return async (ctx, next) => {
    if (hosts.length === 1 || !LOGIN_PAGES.has(ctx.path) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const index = gatewayIndexOf(hosts, ctx);
    if (index === 0) return next();
    const host = hosts[index];
    const target = safeRedirectTarget(queryParam(ctx, 'redirect_uri'), host.cookies.domain) ?? `${host.url}/logout`;
    renderAnswer(ctx, redirect(`${host.url}${HANDOFF_START_PATH}?redirect_uri=${encodeURIComponent(target)}`));
  };
}
