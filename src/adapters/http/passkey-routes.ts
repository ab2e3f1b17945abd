import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Clock } from '../../application/ports/clock';
import type { ChangePasskeyUseCase } from '../../application/passkeys/change-passkey';
import type { ChoosePasskeySecondFactorUseCase } from '../../application/passkeys/choose-passkey-second-factor';
import type { FinishPasskeyEnrolmentUseCase } from '../../application/passkeys/finish-passkey-enrolment';
import type { StartPasskeyEnrolmentUseCase } from '../../application/passkeys/start-passkey-enrolment';
import type { FinishPasskeyLoginUseCase } from '../../application/passkeys/finish-passkey-login';
import type { FinishPasskeyRegistrationUseCase } from '../../application/passkeys/finish-passkey-registration';
import type { ListPasskeysUseCase } from '../../application/passkeys/list-passkeys';
import type { StartPasskeyLoginUseCase } from '../../application/passkeys/start-passkey-login';
import type { StartPasskeyRegistrationUseCase } from '../../application/passkeys/start-passkey-registration';
import type { StartPasskeyReauthenticationUseCase } from '../../application/passkeys/start-passkey-reauthentication';
import type { ReauthenticationProof } from '../../application/passkeys/reauthentication';
import { invalidFields } from './answers';
import { readCookie } from './cookies';
import { header } from './header-access';
import type { HttpSettings } from './http-settings';
import { NO_METRICS } from './http-metrics';
import { JSON_TYPES, jsonBody, jsonFieldsOf, jsonOnly } from './json-body';
import { callerOf, koaFacts, userAgentOf } from './koa-facts';
import { renderAnswer } from './koa-renderer';
import {
  enrolmentAnswer,
  enrolmentOptionsAnswer,
  loginOptionsAnswer,
  PASSKEY_COOKIES,
  passkeyChangeAnswer,
  passkeyListAnswer,
  passkeyLoginAnswer,
  reauthenticationOptionsAnswer,
  registrationAnswer,
  registrationOptionsAnswer,
  secondFactorChoiceAnswer,
} from './passkey-answers';
import { isFromThisSite } from './request-origin';

/** The passkey use cases; absent when PASSKEYS=off (no route is mounted then: every path answers 404). */
export interface PasskeyUseCases {
  readonly startPasskeyRegistration: StartPasskeyRegistrationUseCase;
  readonly finishPasskeyRegistration: FinishPasskeyRegistrationUseCase;
  readonly startPasskeyLogin: StartPasskeyLoginUseCase;
  readonly startPasskeyReauthentication: StartPasskeyReauthenticationUseCase;
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

const ID = /^[A-Za-z0-9_-]{1,1400}$/;

/** Which ceremony a login request is about: a login (the default) or a pending login's second factor; null for anything else. */
function purposeOf(input: Record<string, unknown>): 'login' | 'second_factor' | null {
  if (input.purpose === 'second_factor') return 'second_factor';
  return input.purpose === undefined || input.purpose === 'login' ? 'login' : null;
}

/**
 * What a request that changes the account's passkeys offers as proof that its owner is there
 * (issue 29): `password`, or `reauthentication` (a passkey's answer to the ceremony in its cookie).
 * Unchecked here: the use case decides which the account needs.
 */
function proofOf(input: Record<string, unknown>, challengeToken: string | undefined): ReauthenticationProof {
  return {
    password: input.password,
    passkey: input.reauthentication === undefined ? undefined : { response: input.reauthentication, challengeToken },
  };
}

/** A WebAuthn response is an object (the use case checks the rest). */
function lacksResponse(input: Record<string, unknown>): boolean {
  return input.response === undefined || typeof input.response !== 'object';
}

/**
 * `/api/passkeys/*`. Every POST takes a JSON body (a cross-site form cannot send one, and the
 * gateway grants no CORS preflight); the ones that change an account also pass the same
 * Sec-Fetch-Site / Origin check as logout. The ceremony cookies are host-only.
 */
export function passkeyRoutes(router: Router, useCases: PasskeyUseCases, settings: HttpSettings): void {
  const json = jsonOnly(jsonBody({ types: JSON_TYPES, limit: '64kb' }));
  const facts = (ctx: Context) => koaFacts(ctx, settings.clientAddress);
  const caller = (ctx: Context) => callerOf(ctx, settings.clientAddress);
  const appOrigin = new URL(settings.appUrl).origin;
  const fromThisSite = (ctx: Context): boolean => isFromThisSite(ctx.req.headers, appOrigin);
  const cookie = (ctx: Context, name: string): string | undefined => readCookie(header(ctx.req.headers, 'cookie'), name);
  const metrics = settings.metrics ?? NO_METRICS;
  const now = () => useCases.clock.now();

  router.get('/passkeys', async (ctx) => {
    renderAnswer(ctx, passkeyListAnswer(await useCases.listPasskeys.execute(caller(ctx))));
  });

  const proof = (ctx: Context): ReauthenticationProof => proofOf(jsonFieldsOf(ctx), cookie(ctx, PASSKEY_COOKIES.reauthenticate));

  router.post('/passkeys/registration/options', json, async (ctx) => {
    const result = await useCases.startPasskeyRegistration.execute({ ...caller(ctx), fromThisSite: fromThisSite(ctx), proof: proof(ctx) });
    renderAnswer(ctx, registrationOptionsAnswer(result, settings.cookies, now()));
  });

  router.post('/passkeys/registration', json, async (ctx) => {
    const input = jsonFieldsOf(ctx);
    if (lacksResponse(input)) return renderAnswer(ctx, invalidFields(['response']));
    const result = await useCases.finishPasskeyRegistration.execute({
      ...caller(ctx),
      challengeToken: cookie(ctx, PASSKEY_COOKIES.register),
      response: input.response,
      name: input.name,
      fromThisSite: fromThisSite(ctx),
    });
    renderAnswer(ctx, registrationAnswer(result, settings.cookies));
  });

  for (const kind of ['rename', 'remove'] as const) {
    router.post(`/passkeys/${kind}`, json, async (ctx) => {
      const input = jsonFieldsOf(ctx);
      if (typeof input.id !== 'string' || !ID.test(input.id)) return renderAnswer(ctx, invalidFields(['id']));
      const result = await useCases.changePasskey.execute({
        ...caller(ctx),
        fromThisSite: fromThisSite(ctx),
        id: input.id,
        change: kind === 'rename' ? { kind, name: input.name } : { kind, proof: proof(ctx) },
      });
      renderAnswer(ctx, passkeyChangeAnswer(result, kind, settings.cookies));
    });
  }

  // Issue 16: "ask for a passkey after my password" on the account page.
  router.post('/passkeys/second-factor', json, async (ctx) => {
    const result = await useCases.choosePasskeySecondFactor.execute({
      ...caller(ctx),
      fromThisSite: fromThisSite(ctx),
      passkey: jsonFieldsOf(ctx).passkey,
      proof: proof(ctx),
    });
    renderAnswer(ctx, secondFactorChoiceAnswer(result, settings.cookies));
  });

  router.post('/passkeys/login/options', json, async (ctx) => {
    // A passkey-only account proving itself again before a passkey change (issue 29): a full
    // session's ceremony, bound to it, answered inside the change request itself.
    if (jsonFieldsOf(ctx).purpose === 'reauthenticate') {
      const started = await useCases.startPasskeyReauthentication.execute({ ...caller(ctx), fromThisSite: fromThisSite(ctx) });
      return renderAnswer(ctx, reauthenticationOptionsAnswer(started, settings.cookies, now()));
    }
    const purpose = purposeOf(jsonFieldsOf(ctx));
    if (purpose === null) return renderAnswer(ctx, invalidFields(['purpose']));
    const result = await useCases.startPasskeyLogin.execute({ purpose, sessionToken: caller(ctx).sessionToken });
    renderAnswer(ctx, loginOptionsAnswer(result, purpose, settings.cookies, now()));
  });

  router.post('/passkeys/login', json, async (ctx) => {
    const input = jsonFieldsOf(ctx);
    const purpose = purposeOf(input);
    if (purpose === null) return renderAnswer(ctx, invalidFields(['purpose']));
    if (lacksResponse(input)) return renderAnswer(ctx, invalidFields(['response']));
    const result = await useCases.finishPasskeyLogin.execute({
      ...caller(ctx),
      challengeToken: cookie(ctx, PASSKEY_COOKIES[purpose]),
      response: input.response,
    });
    if (!result.ok && result.error.code === 'account_locked') metrics.login('passkey', 'locked');
    if (!result.ok && result.error.code === 'store_unavailable') metrics.login('passkey', 'unavailable');
    renderAnswer(ctx, passkeyLoginAnswer(result, purpose, settings.cookies));
  });

  // Issue 16: a passkey-only account's enrolment link. The page read the code from the URL
  // fragment (never sent in a request line, so no proxy log holds it) and POSTs it here.
  router.post('/passkeys/enrolment/options', json, async (ctx) => {
    const { ip, requestId } = facts(ctx);
    const result = await useCases.startPasskeyEnrolment.execute({ code: jsonFieldsOf(ctx).code, fromThisSite: fromThisSite(ctx), ip, requestId });
    renderAnswer(ctx, enrolmentOptionsAnswer(result, settings.cookies, now()));
  });

  router.post('/passkeys/enrolment', json, async (ctx) => {
    const input = jsonFieldsOf(ctx);
    if (lacksResponse(input)) return renderAnswer(ctx, invalidFields(['response']));
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
