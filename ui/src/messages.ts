import type { Answer } from './api';
import { formatWait, retryAfterSeconds } from './navigation';

/** Text for answers every form can get: lockout, bad input, service down, anything else. */
export function commonProblem(answer: Answer): string {
  switch (answer.status) {
    case 429: {
      const wait = retryAfterSeconds(answer.retryAfter, answer.message);
      return wait === null
        ? 'Too many failed login attempts. Wait a few minutes, then try again.'
        : `Too many failed login attempts. Try again in ${formatWait(wait)}.`;
    }
    case 503:
      return 'The login service is unavailable right now. Try again in a moment.';
    default:
      return answer.message === '' ? `Something went wrong (error ${answer.status}). Try again.` : `Something went wrong: ${answer.message}`;
  }
}

export const UNREACHABLE = 'Cannot reach the login service. Check your connection and try again.';
