/**
 * The account page's "Change password" section (issue 36): the current password and the new one
 * twice. The two new ones are compared here (a typo would otherwise lock the person out of their
 * own account); everything else is the server's: the strength rule, the current password (counted
 * like a login), where the account lives. Shown only when `/api/account/password` says the
 * password can be changed here (not for USERS accounts, LDAP without LDAP_PASSWORD_CHANGE,
 * passkey-only accounts or OAuth sessions).
 */
import type { WeakPasswordReason } from '../../src/adapters/http/messages';
import { call as apiCall, UnreachableError } from './api';
import type { Answer } from './answer';
import { alertArea, busy, clearAlert, field, h, markInvalid, showAlert } from './dom';
import { messageTable } from './i18n';
import { problemText, unreachable } from './messages';
import type { PageContext } from './page';

/** Every text this section shows, by its key in the message catalogs (ui/locales), read in the page's language when used. */
export const PASSWORD_CHANGE_TEXT = messageTable({
  heading: 'passwordChange.heading',
  intro: 'passwordChange.intro',
  currentLabel: 'passwordChange.currentLabel',
  newLabel: 'passwordChange.newLabel',
  repeatLabel: 'passwordChange.repeatLabel',
  submit: 'passwordChange.submit',
  changing: 'passwordChange.changing',
  changed: 'passwordChange.changed',
  missing: 'passwordChange.missing',
  mismatch: 'passwordChange.mismatch',
});

/** The texts for the answers that did not work, by their code. */
const PROBLEMS = messageTable({
  invalid_credentials: 'passwordChange.wrongCurrent',
  invalid_fields: 'passwordChange.missing',
  read_only_source: 'passwordChange.readOnly',
  users_file_changed: 'passwordChange.fileChanged',
  session_required: 'passwordChange.sessionEnded',
});

/** Why the server refused the new password, by `reason`. */
const WEAK: Readonly<Record<WeakPasswordReason, string>> = messageTable({
  too_short: 'passwordChange.tooShort',
  too_long: 'passwordChange.tooLong',
  same_as_username: 'passwordChange.sameAsUsername',
  same_as_current: 'passwordChange.sameAsCurrent',
  common: 'passwordChange.common',
  directory_policy: 'passwordChange.directoryPolicy',
});

const T = PASSWORD_CHANGE_TEXT;

/**
 * Adds the section before `before` (the passkeys section) and shows it when the caller's password
 * can be changed here. `changed` runs after a change, which signed the other sessions out.
 */
export function mountPasswordChange(before: HTMLElement, ctx: PageContext, changed: () => void = () => undefined): void {
  if (ctx.user.oauth) return;
  const heading = h('h2', { id: 'password-heading', tabindex: '-1' }, T.heading);
  const current = field('password-current', T.currentLabel, { type: 'password', autocomplete: 'current-password', required: true });
  const next = field('password-new', T.newLabel, { type: 'password', autocomplete: 'new-password', minlength: '12', required: true });
  const repeat = field('password-repeat', T.repeatLabel, { type: 'password', autocomplete: 'new-password', minlength: '12', required: true });
  next.input.setAttribute('aria-describedby', 'password-intro');
  const submit = h('button', { type: 'submit', class: 'primary', id: 'password-submit' }, T.submit);
  const status = h('p', { id: 'password-status', class: 'status', role: 'status', 'aria-live': 'polite' });
  const alert = alertArea('password-alert');
  const form = h('form', { novalidate: true, id: 'password-form' }, current.wrapper, next.wrapper, repeat.wrapper, submit);
  const section = h(
    'section',
    { id: 'password-section', class: 'account-section', 'aria-labelledby': 'password-heading', hidden: true },
    heading,
    h('p', { id: 'password-intro', class: 'muted' }, T.intro),
    form,
    status,
    alert,
  );
  before.before(section);
  const inputs = [current.input, next.input, repeat.input];

  const refuse = (text: string, wrong: HTMLInputElement[]): void => {
    showAlert(alert, text);
    markInvalid(wrong, true, 'password-alert');
    wrong[0]?.focus();
  };

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearAlert(alert);
    status.textContent = '';
    markInvalid(inputs, false, 'password-alert');
    next.input.setAttribute('aria-describedby', 'password-intro');
    const empty = inputs.filter((i) => i.value === '');
    if (empty.length > 0) return refuse(T.missing, empty);
    if (next.input.value !== repeat.input.value) return refuse(T.mismatch, [repeat.input]);
    busy(submit, true, T.changing);
    let answer: Answer<string> | null;
    try {
      answer = await apiCall<string>('POST', '/api/account/password', { current: current.input.value, password: next.input.value });
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      answer = null;
    }
    busy(submit, false, T.submit);
    if (answer === null) return refuse(unreachable(), []);
    if (answer.code === 'password_changed') {
      for (const input of inputs) input.value = '';
      status.textContent = T.changed;
      changed();
      return heading.focus();
    }
    if (answer.code === 'invalid_credentials') {
      current.input.value = '';
      return refuse(problemText(answer, PROBLEMS), [current.input]);
    }
    if (answer.code === 'weak_password') {
      const reason = answer.body.reason as WeakPasswordReason;
      return refuse(Object.prototype.hasOwnProperty.call(WEAK, reason) ? WEAK[reason] : problemText(answer, PROBLEMS), [next.input, repeat.input]);
    }
    refuse(problemText(answer, PROBLEMS), []);
  });

  void (async () => {
    let answer: Answer<string>;
    try {
      answer = await apiCall<string>('GET', '/api/account/password');
    } catch (e) {
      if (e instanceof UnreachableError) return;
      throw e;
    }
    if (answer.code === 'password_change' && answer.body.changeable === true) section.hidden = false;
  })();
}
