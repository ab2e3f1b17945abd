import type { Answer } from './answer';
import { formatWait } from './navigation';

/** Text for answers every form can get: lockout, service down, anything else. */
export function commonProblem(answer: Answer<string>): string {
  switch (answer.code) {
    case 'account_locked':
      return answer.retryAfter === null
        ? 'Too many failed login attempts. Wait a few minutes, then try again.'
        : `Too many failed login attempts. Try again in ${formatWait(answer.retryAfter)}.`;
    case 'store_unavailable':
      return 'The login service is unavailable right now. Try again in a moment.';
    default:
      return answer.message === '' ? `Something went wrong (error ${answer.status}). Try again.` : `Something went wrong: ${answer.message}`;
  }
}

export const UNREACHABLE = 'Cannot reach the login service. Check your connection and try again.';
