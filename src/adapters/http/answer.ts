import { MESSAGES, type AnswerCode } from './messages';

/** A header to send, as `[lower-case name, value]`. */
export type HeaderPair = readonly [string, string | number];

/**
 * What the gateway answers to one request, before any stack writes it: the JSON envelope
 * `{status, code, message, ...fields}`, extra headers and `Set-Cookie` values. The mappings in
 * `answers.ts` build these from use-case results; `raw-renderer.ts` and `koa-renderer.ts` write them.
 */
export interface Answer {
  readonly status: number;
  readonly code: AnswerCode;
  readonly message: string;
  /** Envelope fields after `status`, `code` and `message`. */
  readonly fields?: Readonly<Record<string, unknown>>;
  readonly headers?: readonly HeaderPair[];
  readonly cookies?: readonly string[];
  /**
   * The envelope as JSON, computed once for answers that never change (the raw path writes it as it
   * is). Empty for an answer without one (a minimal forward-auth answer, see prefer.ts), which the
   * raw path then writes without `Content-Type`.
   */
  readonly body?: Buffer;
}

type MessageArgs<C extends AnswerCode> = Parameters<(typeof MESSAGES)[C]>;

/** The message of `code` from the one table. */
export function messageOf<C extends AnswerCode>(code: C, ...args: MessageArgs<C>): string {
  return (MESSAGES[code] as (...a: MessageArgs<C>) => string)(...args);
}

/** The envelope object, in the order every answer serialises its fields. */
export function envelopeOf(answer: Answer): Record<string, unknown> {
  return { status: answer.status, code: answer.code, message: answer.message, ...answer.fields };
}

/** The envelope as JSON bytes. */
export function bodyOf(answer: Answer): Buffer {
  return answer.body ?? Buffer.from(JSON.stringify(envelopeOf(answer)));
}

/** An answer whose message takes the table's arguments for `code`. */
export function answer<C extends AnswerCode>(
  status: number,
  code: C,
  args: MessageArgs<C>,
  extra: { readonly fields?: Readonly<Record<string, unknown>>; readonly headers?: readonly HeaderPair[]; readonly cookies?: readonly string[] } = {},
): Answer {
  return { status, code, message: messageOf(code, ...args), ...extra };
}

/** An answer that never changes, with its body serialised now: built once at start-up, shared by every request. */
export function fixed<C extends AnswerCode>(status: number, code: C, ...args: MessageArgs<C>): Answer {
  const base: Answer = { status, code, message: messageOf(code, ...args) };
  return Object.freeze({ ...base, body: bodyOf(base) });
}

/** The same fixed answer with per-request headers added (its precomputed body still holds). */
export function withHeaders(base: Answer, headers: readonly HeaderPair[]): Answer {
  return { status: base.status, code: base.code, message: base.message, body: base.body, headers };
}

/** Headers every API answer carries. */
export const API_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
});
