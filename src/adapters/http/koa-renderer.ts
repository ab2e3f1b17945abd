import type { Context } from 'koa';
import { API_HEADERS, envelopeOf, type Answer } from './answer';

/** Writes an answer through Koa: status, the API headers, the answer's headers and cookies, the JSON envelope. */
export function renderAnswer(ctx: Context, answer: Answer): void {
  ctx.status = answer.status;
  ctx.set(API_HEADERS);
  if (answer.headers !== undefined) for (const [name, value] of answer.headers) ctx.set(name, String(value));
  if (answer.cookies !== undefined) for (const cookie of answer.cookies) ctx.append('Set-Cookie', cookie);
  ctx.body = envelopeOf(answer);
}
