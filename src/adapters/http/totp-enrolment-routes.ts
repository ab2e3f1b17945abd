import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ConfirmTotpEnrolmentUseCase } from '../../application/totp/confirm-totp-enrolment';
import type { GetTotpEnrolmentUseCase } from '../../application/totp/get-totp-enrolment';
import type { RemoveTotpEnrolmentUseCase } from '../../application/totp/remove-totp-enrolment';
import type { StartTotpEnrolmentUseCase } from '../../application/totp/start-totp-enrolment';
import type { QrCodeModule } from '../qrcode/qr-code';
import { invalidFields } from './answers';
import type { HttpSettings } from './http-settings';
import { JSON_TYPES, jsonBody, jsonFieldsOf, jsonOnly } from './json-body';
import { callerOf, userAgentOf } from './koa-facts';
import { renderAnswer } from './koa-renderer';
import { isFromThisSite } from './request-origin';
import { TOTP_CROSS_SITE, totpChangeAnswer, totpEnrolmentStateAnswer, totpSetupAnswer } from './totp-enrolment-answers';

export interface TotpEnrolmentUseCases {
  readonly getTotpEnrolment: GetTotpEnrolmentUseCase;
  readonly startTotpEnrolment: StartTotpEnrolmentUseCase;
  readonly confirmTotpEnrolment: ConfirmTotpEnrolmentUseCase;
  readonly removeTotpEnrolment: RemoveTotpEnrolmentUseCase;
  /** The qrcode package, loaded with the first set-up (ADR 0015). */
  readonly qrcode: () => QrCodeModule;
}

/** The TOTP set-up routes and their methods, for the 404/405 fallback. */
export const TOTP_ENROLMENT_API_METHODS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['/api/account/totp', ['GET', 'HEAD']],
  ['/api/account/totp/setup', ['POST']],
  ['/api/account/totp/confirm', ['POST']],
  ['/api/account/totp/remove', ['POST']],
];

/** Codes are six digits, spaces allowed; enrolment tokens are short sealed strings. */
const CODE = /^[0-9 ]{6,12}$/;
const MAX_ENROLMENT = 1024;
/** As the login form's limit: bcrypt reads 72 bytes, and nothing longer is worth hashing. */
const MAX_PASSWORD = 1024;

/**
 * `/api/account/totp*` (issue 16): setting up and removing a TOTP code of one's own. Only for a
 * fully logged-in cookie session of a local account (see passkeyOwner), only about the caller's
 * own account. Every POST takes JSON only and passes the same Sec-Fetch-Site / Origin check as
 * logout, so a cross-site page can neither start nor finish a set-up.
 */
export function totpEnrolmentRoutes(router: Router, useCases: TotpEnrolmentUseCases, settings: HttpSettings): void {
  const json = jsonOnly(jsonBody({ types: JSON_TYPES, limit: '4kb' }));
  const appOrigin = new URL(settings.appUrl).origin;
  const caller = (ctx: Context) => callerOf(ctx, settings.clientAddress);
  // JSON from this site only: a form post from anywhere is refused as cross-site first, else as the wrong type.
  const guard = async (ctx: Context, next: () => Promise<unknown>): Promise<unknown> => {
    if (!isFromThisSite(ctx.req.headers, appOrigin)) return renderAnswer(ctx, TOTP_CROSS_SITE);
    return json(ctx, next);
  };

  router.get('/account/totp', async (ctx) => {
    renderAnswer(ctx, totpEnrolmentStateAnswer(await useCases.getTotpEnrolment.execute(caller(ctx))));
  });

  router.post('/account/totp/setup', guard, async (ctx) => {
    renderAnswer(ctx, totpSetupAnswer(await useCases.startTotpEnrolment.execute(caller(ctx)), useCases.qrcode));
  });

  router.post('/account/totp/confirm', guard, async (ctx) => {
    const { enrolment, code, password } = jsonFieldsOf(ctx);
    const bad = [
      ...(typeof enrolment === 'string' && enrolment.length > 0 && enrolment.length <= MAX_ENROLMENT ? [] : ['enrolment']),
      ...(typeof code === 'string' && CODE.test(code) ? [] : ['code']),
      ...(typeof password === 'string' && password.length > 0 && password.length <= MAX_PASSWORD ? [] : ['password']),
    ];
    if (bad.length > 0) return renderAnswer(ctx, invalidFields(bad));
    const result = await useCases.confirmTotpEnrolment.execute({
      ...caller(ctx),
      enrolment: enrolment as string,
      code: code as string,
      password: password as string,
      userAgent: userAgentOf(ctx),
    });
    renderAnswer(ctx, totpChangeAnswer(result, 'totp_enrolled', settings.cookies));
  });

  router.post('/account/totp/remove', guard, async (ctx) => {
    const { code } = jsonFieldsOf(ctx);
    if (typeof code !== 'string' || !CODE.test(code)) return renderAnswer(ctx, invalidFields(['code']));
    const result = await useCases.removeTotpEnrolment.execute({ ...caller(ctx), code, userAgent: userAgentOf(ctx) });
    renderAnswer(ctx, totpChangeAnswer(result, 'totp_removed', settings.cookies));
  });
}
