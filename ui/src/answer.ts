// Types only, erased by the build: the `code` every answer carries, as the server declares it.
import type { AnswerCode } from '../../src/adapters/http/messages';

/**
 * Any answer: the envelope (`code` is what the UI decides on; `message` is for people), the rest
 * of the body, and the seconds to wait when the gateway sent them (a locked account).
 */
export interface Answer<C extends string = AnswerCode> {
  readonly status: number;
  /** The stable code, or '' when the body carries none (not an answer of the gateway's API). */
  readonly code: C | '';
  readonly message: string;
  readonly body: Readonly<Record<string, unknown>>;
  readonly retryAfter: number | null;
}
