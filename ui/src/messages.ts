// Types only, erased by the build.
import type { ForgotPasswordStores } from '../../src/adapters/http/app-context';
import type { AnswerCode } from '../../src/adapters/http/messages';
import type { Answer } from './answer';
import { listOf, locale, t, waitPhrase } from './i18n';

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

/**
 * The forgot-password text when the operator wrote none (FORGOT_PASSWORD_MESSAGE unset): where
 * the reader's password lives, for each configured store, in the page's language. In English it is
 * the gateway's own default text (`defaultForgotPasswordMessage`).
 */
export function defaultForgotPasswordText(stores: ForgotPasswordStores): string {
  const local = [stores.users && t('forgot.storeUsers'), stores.usersFile && t('forgot.storeFile')].filter((s): s is string => typeof s === 'string');
  const parts: string[] = [];
  if (local.length > 0) parts.push(t('forgot.local', { stores: listOf(local) }));
  if (stores.ldap) parts.push(t('forgot.ldap'));
  if (stores.providers.length > 0) parts.push(t('forgot.providers', { providers: listOf(stores.providers, locale(), 'disjunction') }));
  return parts.length > 0 ? parts.join(' ') : t('forgot.local', { stores: t('forgot.storeUsers') });
}

/**
 * The text for an answer that did not work: the form's own text for its code, from `texts` (a
 * {@link messageTable} keyed by answer code, so read in the page's language), else
 * {@link commonProblem}. Only the table's own entries count (a code never reads `constructor`).
 */
export function problemText(answer: Answer<string>, texts: Readonly<Partial<Record<AnswerCode, string>>>): string {
  const own: Readonly<Record<string, string>> = texts;
  return Object.prototype.hasOwnProperty.call(own, answer.code) ? own[answer.code] : commonProblem(answer);
}

/** The gateway could not be reached (or sent no JSON). */
export function unreachable(): string {
  return t('problem.unreachable');
}
