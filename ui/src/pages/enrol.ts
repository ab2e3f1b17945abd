import { browserSupportsWebAuthn, startRegistration, type PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { call as apiCall, UnreachableError } from '../api';
import type { Answer } from '../answer';
import { alertArea, busy, clearAlert, field, h, showAlert } from '../dom';
import { messageTable, t } from '../i18n';
import { problemText, unreachable } from '../messages';
import { actions, goTo, render, type PageContext } from '../page';

/** Every text the enrolment page shows (issue 16), by its key in the message catalogs (ui/locales), read in the page's language when used. */
export const ENROL_TEXT = messageTable({
  heading: 'enrol.heading',
  lead: 'enrol.lead',
  nameLabel: 'enrol.nameLabel',
  namePlaceholder: 'enrol.namePlaceholder',
  defaultName: 'passkeys.defaultName',
  create: 'enrol.create',
  waiting: 'passkeys.waiting',
  retry: 'enrol.retry',
  noCode: 'enrol.noCode',
  unsupported: 'enrol.unsupported',
  cancelled: 'enrol.cancelled',
  signIn: 'notFound.toLogin',
});

/** The texts for the answers of the enrolment endpoints that did not work, by their code. */
const ENROL_PROBLEMS = messageTable({
  enrolment_link_invalid: 'enrol.invalidLink',
  challenge_invalid: 'enrol.expired',
  passkey_invalid: 'enrol.rejected',
  passkey_not_added: 'enrol.duplicate',
  too_many_passkeys: 'enrol.tooMany',
  invalid_name: 'passkeys.invalid_name',
});

/** Whom the link is for, when the gateway says. */
const greetingFor = (who: string): string => t('enrol.greeting', { user: who });

const call = (path: string, body: unknown): Promise<Answer<string>> => apiCall<string>('POST', path, body);

/** The text for an answer of the enrolment endpoints that did not work. */
const problem = (answer: Answer<string>): string => problemText(answer, ENROL_PROBLEMS);

/**
 * `/enrol#<code>`: the first passkey of a passkey-only account, from the link an administrator
 * made (`portcullis passkeys enrol`). The code is in the fragment, which the browser never sends;
 * the page takes it out of the address bar at once and POSTs it only when the person asks, so a
 * link scanner that merely opens the page does not spend it. The redeemed link's options are kept
 * for a retry when the person closes the browser's dialog.
 */
export function enrolPage(ctx: PageContext): void {
  const code = location.hash.replace(/^#/, '');
  if (code !== '') history.replaceState(null, '', location.pathname);
  const alert = alertArea('enrol-alert');
  const back = actions(h('a', { href: '/login' }, ENROL_TEXT.signIn));
  if (code === '' || !browserSupportsWebAuthn()) {
    render(ctx, ENROL_TEXT.heading, h('p', { class: 'lead' }, ENROL_TEXT.lead), alert, back);
    showAlert(alert, code === '' ? ENROL_TEXT.noCode : ENROL_TEXT.unsupported);
    return;
  }

  const name = field('passkey-name', ENROL_TEXT.nameLabel, { type: 'text', maxlength: '64', placeholder: ENROL_TEXT.namePlaceholder, autocomplete: 'off' });
  const submit = h('button', { type: 'submit', class: 'primary', id: 'enrol-create' }, ENROL_TEXT.create);
  const form = h('form', { novalidate: true }, name.wrapper, submit);
  const greeting = h('p', { id: 'enrol-greeting', hidden: true });
  let options: PublicKeyCredentialCreationOptionsJSON | null = null;
  let spent = false;

  const stop = (text: string): void => {
    spent = true;
    form.hidden = true;
    showAlert(alert, text);
  };

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (spent) return;
    clearAlert(alert);
    busy(submit, true, ENROL_TEXT.waiting);
    try {
      if (options === null) {
        const started = await call('/api/passkeys/enrolment/options', { code });
        if (started.code !== 'passkey_options') return stop(problem(started));
        options = started.body.options as PublicKeyCredentialCreationOptionsJSON;
        const who = typeof started.body.username === 'string' ? started.body.username : '';
        if (who !== '') {
          greeting.textContent = greetingFor(who);
          greeting.hidden = false;
        }
      }
      let response: unknown;
      try {
        response = await startRegistration({ optionsJSON: options });
      } catch (e) {
        const cancelled = ['NotAllowedError', 'AbortError'].includes(String((e as { name?: unknown } | null)?.name));
        showAlert(alert, cancelled ? ENROL_TEXT.cancelled : ENROL_TEXT.unsupported);
        busy(submit, false, ENROL_TEXT.retry);
        return;
      }
      const chosen = name.input.value.trim() === '' ? ENROL_TEXT.defaultName : name.input.value.trim();
      const done = await call('/api/passkeys/enrolment', { name: chosen, response });
      if (done.code === 'passkey_enrolled') return goTo('/account');
      // A bad name can be fixed and sent again with a new prompt only while the ceremony lives; anything else spends it.
      if (done.code === 'invalid_name') showAlert(alert, problem(done));
      else return stop(problem(done));
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      showAlert(alert, unreachable());
    } finally {
      if (!spent) busy(submit, false, options === null ? ENROL_TEXT.create : ENROL_TEXT.retry);
    }
  });

  render(ctx, ENROL_TEXT.heading, h('p', { class: 'lead' }, ENROL_TEXT.lead), greeting, form, alert, back);
  name.input.focus();
}
