import { expectEnvelope, postJson, SESSION_COOKIE, totpCode } from './http';
import { cookieFrom, type RunningGateway } from './server';

/** Sets up a TOTP code for the session in `cookie` (whose account's password is `password`) through the API; returns the secret and the re-issued cookie. */
export async function enrolTotp(
  gw: RunningGateway,
  cookie: string,
  password: string,
): Promise<{ secret: string; cookie: string; body: Record<string, unknown> }> {
  const setup = await expectEnvelope(await postJson(gw, '/api/account/totp/setup', {}, { cookie }), 200);
  const secret = String(setup.secret);
  const res = await postJson(gw, '/api/account/totp/confirm', { enrolment: setup.enrolment, code: await totpCode(secret), password }, { cookie });
  const body = await expectEnvelope(res, 200);
  const next = cookieFrom(res, SESSION_COOKIE);
  if (next === null) throw new Error('the confirmation set no cookie');
  return { secret, cookie: `${SESSION_COOKIE}=${next.value}`, body };
}
