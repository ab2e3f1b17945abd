import { call as apiCall, UnreachableError } from '../api';
import type { Answer } from '../answer';
import { alertArea, busy, clearAlert, field, h, markInvalid, showAlert } from '../dom';
import { messageTable, t } from '../i18n';
import { problemText, unreachable } from '../messages';
import { actions, render, type PageContext } from '../page';

/** Every text the set-password page shows (issue 36), by its key in ui/locales, read in the page's language when used. */
export const INVITE_TEXT = messageTable({
  heading: 'invite.heading',
  lead: 'invite.lead',
  password: 'invite.password',
  again: 'invite.again',
  submit: 'invite.submit',
  saving: 'invite.saving',
  mismatch: 'invite.mismatch',
  weak: 'invite.weak',
  noCode: 'invite.noCode',
  signIn: 'notFound.toLogin',
});

const INVITE_PROBLEMS = messageTable({
  weak_password: 'invite.weak',
  invitation_invalid: 'invite.invalid',
});

/** The fewest characters the server takes (src/domain/new-password.ts); checked here only to answer sooner. */
const MIN_LENGTH = 12;

/**
 * `/invite#<code>`: an invitation or a password reset an administrator made in the console. The
 * code is in the fragment, which the browser never sends; the page takes it out of the address bar
 * at once and POSTs it only with the chosen password, so a link scanner that opens the page does
 * not spend it. A weak password is refused before the link is spent: the person may try another.
 */
export function invitePage(ctx: PageContext): void {
  const code = location.hash.replace(/^#/, '');
  if (code !== '') history.replaceState(null, '', location.pathname);
  const alert = alertArea('invite-alert');
  const back = actions(h('a', { href: '/login' }, INVITE_TEXT.signIn));
  const lead = h('p', { class: 'lead' }, INVITE_TEXT.lead);
  if (code === '') {
    render(ctx, INVITE_TEXT.heading, lead, alert, back);
    showAlert(alert, INVITE_TEXT.noCode);
    return;
  }

  const password = field('new-password', INVITE_TEXT.password, {
    type: 'password',
    autocomplete: 'new-password',
    required: true,
    minlength: String(MIN_LENGTH),
  });
  const again = field('new-password-again', INVITE_TEXT.again, { type: 'password', autocomplete: 'new-password', required: true });
  const submit = h('button', { type: 'submit', class: 'primary', id: 'invite-submit' }, INVITE_TEXT.submit);
  const form = h('form', { novalidate: true, id: 'invite-form' }, password.wrapper, again.wrapper, submit);
  const done = h('p', { id: 'invite-done', role: 'status', hidden: true });

  const refuse = (text: string, fields: HTMLInputElement[]): void => {
    markInvalid([password.input, again.input], false, 'invite-alert');
    markInvalid(fields, true, 'invite-alert');
    showAlert(alert, text);
    fields[0]?.focus();
  };

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearAlert(alert);
    const chosen = password.input.value;
    if ([...chosen].length < MIN_LENGTH) return refuse(INVITE_TEXT.weak, [password.input]);
    if (chosen !== again.input.value) return refuse(INVITE_TEXT.mismatch, [again.input]);
    busy(submit, true, INVITE_TEXT.saving);
    try {
      const answer: Answer<string> = await apiCall<string>('POST', '/api/invitations/password', { code, password: chosen });
      if (answer.code === 'password_set') {
        form.hidden = true;
        lead.hidden = true;
        done.textContent = t('invite.done', { user: String(answer.body.username ?? '') });
        done.hidden = false;
        return;
      }
      if (answer.code === 'weak_password') return refuse(problemText(answer, INVITE_PROBLEMS), [password.input]);
      // Anything else spent the link or never had one: the form goes, the way back stays.
      form.hidden = true;
      showAlert(alert, problemText(answer, INVITE_PROBLEMS));
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      showAlert(alert, unreachable());
    } finally {
      busy(submit, false, INVITE_TEXT.submit);
    }
  });

  render(ctx, INVITE_TEXT.heading, lead, form, done, alert, back);
  password.input.focus();
}
