import type { Answer } from './answer';
import { t, waitPhrase } from './i18n';

/** Text for answers every form can get: lockout, service down, anything else (in the page's language; the server's English `message` only for a code the UI does not know). */
export function commonProblem(answer: Answer<string>): string {
  switch (answer.code) {
    case 'account_locked':
      return answer.retryAfter === null ? t('problem.account_locked_later') : t('problem.account_locked', { wait: waitPhrase(answer.retryAfter) });
    case 'store_unavailable':
      return t('problem.store_unavailable');
    default:
      return answer.message === '' ? t('problem.unknown_status', { status: String(answer.status) }) : t('problem.unknown_message', { message: answer.message });
  }
}

/** The gateway could not be reached (or sent no JSON). */
export function unreachable(): string {
  return t('problem.unreachable');
}
