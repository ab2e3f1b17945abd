import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Clock } from '../../application/ports/clock';
import type { ChangePasskeyUseCase } from '../../application/use-cases/change-passkey';
import type { ChoosePasskeySecondFactorUseCase } from '../../application/use-cases/choose-passkey-second-factor';
import type { FinishPasskeyEnrolmentUseCase } from '../../application/use-cases/finish-passkey-enrolment';
import type { StartPasskeyEnrolmentUseCase } from '../../application/use-cases/start-passkey-enrolment';
import type { FinishPasskeyLoginUseCase } from '../../application/use-cases/finish-passkey-login';
import type { FinishPasskeyRegistrationUseCase } from '../../application/use-cases/finish-passkey-registration';
import type { ListPasskeysUseCase } from '../../application/use-cases/list-passkeys';
import type { StartPasskeyLoginUseCase } from '../../application/use-cases/start-passkey-login';
import type { StartPasskeyRegistrationUseCase } from '../../application/use-cases/start-passkey-registration';
import { invalidFields, UNSUPPORTED_MEDIA_TYPE } from './answers';
import { readCookie } from './cookies';
import { header } from './header-access';
import type { HttpSettings } from './http-settings';
import { NO_METRICS } from './http-metrics';
import { jsonBody } from './json-body';
import { koaFacts } from './koa-facts';
import { renderAnswer } from './koa-renderer';
import {
  enrolmentAnswer,
  enrolmentOptionsAnswer,
  loginOptionsAnswer,
  PASSKEY_COOKIES,
  passkeyChangeAnswer,
  passkeyListAnswer,
  passkeyLoginAnswer,
  registrationAnswer,
  registrationOptionsAnswer,
  secondFactorChoiceAnswer,
} from './passkey-answers';
import { isFromThisSite } from './request-origin';
import { userAgentOf } from './account-routes';

/** The passkey use cases; absent when PASSKEYS=off (no route is mounted then: every path answers 404). */
export interface PasskeyUseCases {
  readonly startPasskeyRegistration: StartPasskeyRegistrationUseCase;
  readonly finishPasskeyRegistration: FinishPasskeyRegistrationUseCase;
  readonly startPasskeyLogin: StartPasskeyLoginUseCase;
  readonly finishPasskeyLogin: FinishPasskeyLoginUseCase;
  readonly listPasskeys: ListPasskeysUseCase;
  readonly changePasskey: ChangePasskeyUseCase;
  readonly choosePasskeySecondFactor: ChoosePasskeySecondFactorUseCase;
  readonly startPasskeyEnrolment: StartPasskeyEnrolmentUseCase;
  readonly finishPasskeyEnrolment: FinishPasskeyEnrolmentUseCase;
  readonly clock: Clock;
}

/** The API paths of passkeys and their methods (for the 405 fallback). */
export const PASSKEY_API_METHODS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['/api/passkeys', ['GET', 'HEAD']],
  ['/api/passkeys/registration/options', ['POST']],
  ['/api/passkeys/registration', ['POST']],
  ['/api/passkeys/rename', ['POST']],
  ['/api/passkeys/remove', ['POST']],
  ['/api/passkeys/login/options', ['POST']],
  ['/api/passkeys/login', ['POST']],
  ['/api/passkeys/enrolment/options', ['POST']],
  ['/api/passkeys/enrolment', ['POST']],
  ['/api/passkeys/second-factor', ['POST']],
];

const JSON_TYPES = ['application/json', '+json'];
const ID = /^[A-Za-z0-9_-]{1,1400}$/;

function bodyOf(ctx: Context): Record<string, unknown> {
  const raw = ctx.request.body as unknown;
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
}

/**
 * `/api/passkeys/*`. Every POST takes a JSON body (a cross-site form cannot send one, and the
 * gateway grants no CORS preflight); the ones that change an account also pass the same
 * Sec-Fetch-Site / Origin check as logout. The ceremony cookies are host-only.
 */
export function passkeyRoutes(router: Router, useCases: PasskeyUseCases, settings: HttpSettings): void {
  const body = jsonBody({ types: JSON_TYPES, limit: '64kb' });
  const json = async (ctx: Context, next: () => Promise<unknown>): Promise<unknown> => {
    if (ctx.is(JSON_TYPES)) return body(ctx, next);
    renderAnswer(ctx, UNSUPPORTED_MEDIA_TYPE);
    return undefined;
  };
  const facts = (ctx: Context) => koaFacts(ctx, settings.clientAddress);
  const appOrigin = new URL(settings.appUrl).origin;
  const fromThisSite = (ctx: Context): boolean => isFromThisSite(ctx.req.headers, appOrigin, Boolean(ctx.is(JSON_TYPES)));
  const cookie = (ctx: Context, name: string): string | undefined => readCookie(header(ctx.req.headers, 'cookie'), name);
  const metrics = settings.metrics ?? NO_METRICS;
  const now = () => useCases.clock.now();

  router.get('/passkeys', async (ctx) => {
    const { ip, requestId, sessionToken } = facts(ctx);
    renderAnswer(ctx, passkeyListAnswer(await useCases.listPasskeys.execute({ sessionToken, ip, requestId })));
  });

  router.post('/passkeys/registration/options', json, async (ctx) => {
    const { ip, requestId, sessionToken } = facts(ctx);
    const result = await useCases.startPasskeyRegistration.execute({ sessionToken, fromThisSite: fromThisSite(ctx), ip, requestId });
    renderAnswer(ctx, registrationOptionsAnswer(result, settings.cookies, now()));
  });

  router.post('/passkeys/registration', json, async (ctx) => {
    const { ip, requestId, sessionToken } = facts(ctx);
    const input = bodyOf(ctx);
    if (input.response === undefined || typeof input.response !== 'object') return renderAnswer(ctx, invalidFields(['response']));
    const result = await useCases.finishPasskeyRegistration.execute({
      sessionToken,
      challengeToken: cookie(ctx, PASSKEY_COOKIES.register),
      response: input.response,
      name: input.name,
      fromThisSite: fromThisSite(ctx),
      ip,
      requestId,
    });
    renderAnswer(ctx, registrationAnswer(result, settings.cookies));
  });

  for (const kind of ['rename', 'remove'] as const) {
    router.post(`/passkeys/${kind}`, json, async (ctx) => {
      const { ip, requestId, sessionToken } = facts(ctx);
      const input = bodyOf(ctx);
      if (typeof input.id !== 'string' || !ID.test(input.id)) return renderAnswer(ctx, invalidFields(['id']));
      const result = await useCases.changePasskey.execute({
        sessionToken,
        fromThisSite: fromThisSite(ctx),
        id: input.id,
        change: kind === 'rename' ? { kind, name: input.name } : { kind },
        ip,
        requestId,
      });
      renderAnswer(ctx, passkeyChangeAnswer(result, kind));
    });
  }

  // Issue 16: "ask for a passkey after my password" on the account page.
  router.post('/passkeys/second-factor', json, async (ctx) => {
    const { ip, requestId, sessionToken } = facts(ctx);
    const result = await useCases.choosePasskeySecondFactor.execute({
      sessionToken,
      fromThisSite: fromThisSite(ctx),
      passkey: bodyOf(ctx).passkey,
      ip,
      requestId,
    });
    renderAnswer(ctx, secondFactorChoiceAnswer(result));
  });

  router.post('/passkeys/login/options', json, async (ctx) => {
    const input = bodyOf(ctx);
    const purpose = input.purpose === 'second_factor' ? 'second_factor' : input.purpose === undefined || input.purpose === 'login' ? 'login' : null;
    if (purpose === null) return renderAnswer(ctx, invalidFields(['purpose']));
    const { sessionToken } = facts(ctx);
    const result = await useCases.startPasskeyLogin.execute({ purpose, sessionToken });
    renderAnswer(ctx, loginOptionsAnswer(result, purpose, settings.cookies, now()));
  });

  router.post('/passkeys/login', json, async (ctx) => {
    const input = bodyOf(ctx);
    const purpose = input.purpose === 'second_factor' ? 'second_factor' : input.purpose === undefined || input.purpose === 'login' ? 'login' : null;
    if (purpose === null) return renderAnswer(ctx, invalidFields(['purpose']));
    if (input.response === undefined || typeof input.response !== 'object') return renderAnswer(ctx, invalidFields(['response']));
    const { ip, requestId, sessionToken } = facts(ctx);
    const result = await useCases.finishPasskeyLogin.execute({
      challengeToken: cookie(ctx, PASSKEY_COOKIES[purpose]),
      sessionToken,
      response: input.response,
      ip,
      requestId,
    });
    if (!result.ok && result.error.code === 'account_locked') metrics.login('passkey', 'locked');
    if (!result.ok && result.error.code === 'store_unavailable') metrics.login('passkey', 'unavailable');
    renderAnswer(ctx, passkeyLoginAnswer(result, purpose, settings.cookies));
  });

  // Issue 16: a passkey-only account's enrolment link. The page read the code from the URL
  // fragment (never sent in a request line, so no proxy log holds it) and POSTs it here.
  router.post('/passkeys/enrolment/options', json, async (ctx) => {
    const { ip, requestId } = facts(ctx);
    const result = await useCases.startPasskeyEnrolment.execute({ code: bodyOf(ctx).code, fromThisSite: fromThisSite(ctx), ip, requestId });
    renderAnswer(ctx, enrolmentOptionsAnswer(result, settings.cookies, now()));
  });

  router.post('/passkeys/enrolment', json, async (ctx) => {
    const input = bodyOf(ctx);
    if (input.response === undefined || typeof input.response !== 'object') return renderAnswer(ctx, invalidFields(['response']));
    const { ip, requestId } = facts(ctx);
    const result = await useCases.finishPasskeyEnrolment.execute({
      challengeToken: cookie(ctx, PASSKEY_COOKIES.enrol),
      response: input.response,
      name: input.name,
      fromThisSite: fromThisSite(ctx),
      ip,
      requestId,
      userAgent: userAgentOf(ctx),
    });
    renderAnswer(ctx, enrolmentAnswer(result, settings.cookies));
  });
}
