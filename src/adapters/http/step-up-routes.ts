import type Router from '@koa/router';
import type { Context } from 'koa';
import type { CompleteStepUpError, CompleteStepUpOutput, CompleteStepUpUseCase, StepUpProof } from '../../application/step-up/complete-step-up';
import type { DescribeStepUpError, DescribeStepUpOutput, DescribeStepUpUseCase } from '../../application/step-up/describe-step-up';
import type { Result } from '../../domain/result';
import { answer, fixed, type Answer } from './answer';
import {
  CROSS_SITE_REQUEST,
  INVALID_CREDENTIALS,
  invalidFields,
  locked,
  NOT_LOGGED_IN,
  sessionCookie,
  STORE_UNAVAILABLE,
  TOTP_INVALID,
  unmapped,
} from './answers';
import { clearCookie, readCookie, type CookieSettings } from './cookies';
import { header } from './header-access';
import type { HttpSettings } from './http-settings';
import { jsonBody, jsonFieldsOf, jsonOnly, JSON_TYPES } from './json-body';
import { callerOf, queryParam, userAgentOf } from './koa-facts';
import { renderAnswer } from './koa-renderer';
import { PASSKEY_COOKIES } from './passkey-answers';
import { isFromThisSite } from './request-origin';

export interface StepUpUseCases {
  readonly describeStepUp: DescribeStepUpUseCase;
  readonly completeStepUp: CompleteStepUpUseCase;
}

/** The step-up routes and their methods, for the 404/405 fallback. */
export const STEP_UP_API_METHODS: ReadonlyArray<readonly [string, readonly string[]]> = [['/api/step-up', ['GET', 'HEAD', 'POST']]];

/** A sealed reference is a few hundred characters; anything much longer is not one of ours. */
const MAX_REFERENCE_LENGTH = 4096;
const MAX_SECRET_LENGTH = 1024;

const INVALID_STEP_UP = fixed(400, 'invalid_step_up');
const STEP_UP_METHOD = fixed(400, 'step_up_method');
const PASSKEY_INVALID = fixed(401, 'passkey_invalid');
const CHALLENGE_INVALID = fixed(400, 'challenge_invalid');

/** `GET /api/step-up?ref=`: what the login page asks, and of whom. */
export function describeStepUpAnswer(result: Result<DescribeStepUpOutput, DescribeStepUpError>): Answer {
  if (result.ok) {
    const { username, methods, maxAge, returnTo } = result.value;
    return answer(200, 'step_up', [], { fields: { username, methods, maxAge, returnTo } });
  }
  const error = result.error;
  switch (error.code) {
    case 'not_logged_in':
      return NOT_LOGGED_IN;
    case 'invalid_step_up':
      return INVALID_STEP_UP;
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('describe step-up', error);
  }
}

/** `POST /api/step-up`: the same session with the proof's time, in a new cookie; the way back in `redirect`. */
export function completeStepUpAnswer(result: Result<CompleteStepUpOutput, CompleteStepUpError>, cookies: CookieSettings, spent: string[]): Answer {
  if (result.ok) {
    return answer(200, 'stepped_up', [], { fields: { redirect: result.value.returnTo }, cookies: [sessionCookie(result.value, cookies), ...spent] });
  }
  const error = result.error;
  const refusal = (a: Answer): Answer => (spent.length === 0 ? a : { ...a, cookies: spent });
  switch (error.code) {
    case 'cross_site_request':
      return CROSS_SITE_REQUEST;
    case 'not_logged_in':
      return NOT_LOGGED_IN;
    case 'invalid_step_up':
      return refusal(INVALID_STEP_UP);
    case 'step_up_method':
      return refusal(STEP_UP_METHOD);
    case 'invalid_credentials':
      return INVALID_CREDENTIALS;
    case 'invalid_code':
    case 'totp_replayed':
      return TOTP_INVALID;
    case 'passkey_invalid':
      return refusal(PASSKEY_INVALID);
    case 'challenge_invalid':
      return refusal(CHALLENGE_INVALID);
    case 'account_locked':
      return refusal(locked(error.retryAfter));
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('complete step-up', error);
  }
}

const text = (v: unknown, max: number): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;

/** The proof of a step-up body, or the fields at fault. */
export function stepUpProofOf(body: Record<string, unknown>, challengeToken: string | undefined): StepUpProof | string[] {
  switch (body.method) {
    case 'password':
      return text(body.password, MAX_SECRET_LENGTH) ? { method: 'password', password: body.password } : ['password'];
    case 'totp':
      return text(body.code, 16) ? { method: 'totp', code: body.code } : ['code'];
    case 'passkey':
      return body.response !== null && typeof body.response === 'object'
        ? { method: 'passkey', passkey: { response: body.response, challengeToken } }
        : ['response'];
    default:
      return ['method'];
  }
}

/**
 * `/api/step-up` (issue 33): the login page's half of a step-up. A full session cookie only (the
 * session that was sent here); the POST takes JSON only and is refused on evidence of another
 * site. A passkey's ceremony is the account page's re-authentication (`POST
 * /api/passkeys/login/options` with `purpose: "reauthenticate"`), whose cookie is spent here.
 */
export function stepUpRoutes(router: Router, useCases: StepUpUseCases, settings: HttpSettings): void {
  const json = jsonOnly(jsonBody({ types: JSON_TYPES, limit: '16kb' }));
  const caller = (ctx: Context) => callerOf(ctx, settings.clientAddress);
  const appOrigin = new URL(settings.appUrl).origin;

  router.get('/step-up', async (ctx) => {
    const reference = queryParam(ctx, 'ref');
    if (!text(reference, MAX_REFERENCE_LENGTH)) return renderAnswer(ctx, invalidFields(['ref']));
    renderAnswer(ctx, describeStepUpAnswer(await useCases.describeStepUp.execute({ ...caller(ctx), reference })));
  });

  router.post('/step-up', json, async (ctx) => {
    const body = jsonFieldsOf(ctx);
    const challengeToken = readCookie(header(ctx.req.headers, 'cookie'), PASSKEY_COOKIES.reauthenticate);
    const proof = stepUpProofOf(body, challengeToken);
    const fields = [...(text(body.ref, MAX_REFERENCE_LENGTH) ? [] : ['ref']), ...(Array.isArray(proof) ? proof : [])];
    if (fields.length > 0 || Array.isArray(proof)) return renderAnswer(ctx, invalidFields(fields));
    const result = await useCases.completeStepUp.execute({
      ...caller(ctx),
      fromThisSite: isFromThisSite(ctx.req.headers, appOrigin),
      reference: body.ref as string,
      proof,
      userAgent: userAgentOf(ctx),
    });
    // A passkey's ceremony is spent whatever the outcome, like the account page's.
    const spent = proof.method === 'passkey' ? [clearCookie(PASSKEY_COOKIES.reauthenticate, settings.cookies, { hostOnly: true })] : [];
    renderAnswer(ctx, completeStepUpAnswer(result, settings.cookies, spent));
  });
}
