import { api, UnreachableError, type StepUpProof } from '../api';
import type { Answer } from '../answer';
import { alertArea, busy, clearAlert, field, h, markInvalid, showAlert } from '../dom';
import { messageTable, t, tx } from '../i18n';
import { commonProblem, problemText, unreachable } from '../messages';
import { actions, render, replaceWith, type PageContext } from '../page';
import { passkeysSupported, reauthenticationAssertion } from '../passkeys';

/**
 * `/login?step_up=<reference>` (issue 33): a page of an application asks for a fresher or stronger
 * proof than this session holds. The page asks `GET /api/step-up` what that is and offers only
 * those methods (the password again, a TOTP code, a passkey: any one of them), sends the answer to
 * `POST /api/step-up`, and goes back to the page that asked. The session stays the same one.
 */

const STEP_UP_TEXT = messageTable({
  heading: 'stepUp.heading',
  lead: 'stepUp.lead',
  leadAny: 'stepUp.leadAny',
  signedInAs: 'stepUp.signedInAs',
  confirm: 'stepUp.confirm',
  confirming: 'stepUp.confirming',
  wrongPassword: 'stepUp.wrongPassword',
  passkeyButton: 'stepUp.passkeyButton',
  passkeyRefused: 'stepUp.passkeyRefused',
  passkeyUnsupported: 'stepUp.passkeyUnsupported',
  expired: 'stepUp.expired',
  sessionEnded: 'stepUp.sessionEnded',
  noMethod: 'stepUp.noMethod',
  methodRefused: 'stepUp.methodRefused',
  loginAgain: 'stepUp.loginAgain',
});

/** What the step-up asks, as `GET /api/step-up` told it. */
interface StepUpView {
  readonly username: string;
  readonly methods: readonly string[];
  readonly returnTo: string | null;
}

/** Answers after which this reference cannot be completed any more: the page offers a normal login instead. */
const DEAD_ENDS: ReadonlySet<string> = new Set(['invalid_step_up', 'not_logged_in', 'invalid_fields']);

/** The texts for a refused answer the person can retry, by its code. */
const RETRY_TEXT = messageTable({
  invalid_credentials: 'stepUp.wrongPassword',
  totp_invalid: 'totp.totp_invalid',
  passkey_invalid: 'stepUp.passkeyRefused',
  challenge_invalid: 'passkeys.expired',
  step_up_method: 'stepUp.methodRefused',
});

/** The normal login, showing its form even over a live session, and coming back to `returnTo` afterwards. */
function loginAgainUrl(returnTo: string | null): string {
  const query = new URLSearchParams({ prompt: 'login' });
  if (returnTo !== null) query.set('redirect_uri', returnTo);
  return `/login?${query.toString()}`;
}

/** The page when the reference is spent, expired, another session's, or the session ended: what happened, and a normal login. */
function deadEnd(ctx: PageContext, code: string, returnTo: string | null, problem?: Answer<string>): void {
  const text = code === 'not_logged_in' ? STEP_UP_TEXT.sessionEnded : problem !== undefined ? commonProblem(problem) : STEP_UP_TEXT.expired;
  const alert = alertArea('step-up-alert');
  const link = h('a', { href: loginAgainUrl(returnTo), id: 'step-up-login' }, STEP_UP_TEXT.loginAgain);
  render(ctx, STEP_UP_TEXT.heading, alert, actions(link));
  showAlert(alert, text);
  link.focus();
}

/** The host of the page that asked, for the lead; null when there is none to name. */
function hostOf(returnTo: string | null): string | null {
  if (returnTo === null) return null;
  try {
    const url = new URL(returnTo);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : null;
  } catch {
    return null;
  }
}

/** Back to the page that asked (replacing this one: going back must not land on a spent step-up). */
function goBack(redirect: unknown): void {
  const host = typeof redirect === 'string' ? hostOf(redirect) : null;
  replaceWith(host !== null ? (redirect as string) : '/account');
}

/** The forms and button of one step-up, for `view`'s methods only. */
function stepUpForm(ctx: PageContext, ref: string, view: StepUpView): void {
  const alert = alertArea('step-up-alert');
  const parts: (HTMLElement | null)[] = [];
  const inputs: HTMLInputElement[] = [];

  /** Sends one proof and acts on the answer: back to the page, a retry with the reason, or the dead end. */
  const send = async (proof: StepUpProof, button: HTMLButtonElement, label: string, input: HTMLInputElement | null): Promise<void> => {
    clearAlert(alert);
    markInvalid(inputs, false, alert.id);
    busy(button, true, proof.method === 'passkey' ? t('passkeys.waiting') : STEP_UP_TEXT.confirming);
    try {
      const answer = await api.completeStepUp(ref, proof);
      if (answer.code === 'stepped_up') return goBack(answer.body.redirect);
      if (DEAD_ENDS.has(answer.code)) return deadEnd(ctx, answer.code, view.returnTo);
      showAlert(alert, problemText(answer, RETRY_TEXT));
      if (input !== null) {
        markInvalid([input], answer.code === 'invalid_credentials' || answer.code === 'totp_invalid', alert.id);
        input.value = '';
        input.focus();
      }
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      showAlert(alert, unreachable());
    }
    busy(button, false, label);
  };

  if (view.methods.includes('password')) {
    const password = field('step-up-password', t('login.password'), { type: 'password', autocomplete: 'current-password', required: true });
    const submit = h('button', { type: 'submit', class: 'primary' }, STEP_UP_TEXT.confirm);
    // The account's name for password managers, which fill the password of the account they see.
    const username = h('input', { type: 'text', name: 'username', autocomplete: 'username', value: view.username, hidden: true, readonly: true });
    const form = h('form', { novalidate: true, id: 'step-up-password-form' }, username, password.wrapper, submit);
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      if (password.input.value === '') {
        markInvalid([password.input], true, alert.id);
        showAlert(alert, t('login.missingPassword'));
        return password.input.focus();
      }
      void send({ method: 'password', password: password.input.value }, submit, STEP_UP_TEXT.confirm, password.input);
    });
    parts.push(form);
    inputs.push(password.input);
  }
  if (view.methods.includes('totp')) {
    const code = field('step-up-code', t('totp.code'), {
      type: 'text',
      inputmode: 'numeric',
      autocomplete: 'one-time-code',
      maxlength: '10',
      spellcheck: 'false',
      required: true,
    });
    const submit = h('button', { type: 'submit', class: 'primary' }, STEP_UP_TEXT.confirm);
    const form = h('form', { novalidate: true, id: 'step-up-code-form' }, code.wrapper, submit);
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const value = code.input.value.replace(/[\s-]/g, '');
      if (!/^\d{6,8}$/.test(value)) {
        markInvalid([code.input], true, alert.id);
        showAlert(alert, t('totp.format'));
        return code.input.focus();
      }
      void send({ method: 'totp', code: value }, submit, STEP_UP_TEXT.confirm, code.input);
    });
    parts.push(form);
    inputs.push(code.input);
  }
  let passkeyMissing = false;
  if (view.methods.includes('passkey')) {
    if (passkeysSupported()) {
      const button = h(
        'button',
        { type: 'button', class: view.methods.length === 1 ? 'primary passkey' : 'secondary passkey', id: 'step-up-passkey' },
        STEP_UP_TEXT.passkeyButton,
      );
      button.addEventListener('click', async () => {
        clearAlert(alert);
        busy(button, true, t('passkeys.waiting'));
        try {
          const assertion = await reauthenticationAssertion();
          busy(button, false, STEP_UP_TEXT.passkeyButton);
          if (assertion === null) return;
          if ('problem' in assertion) {
            const problem = assertion.problem;
            return typeof problem === 'string' ? showAlert(alert, problem) : showAlert(alert, problemText(problem, RETRY_TEXT));
          }
          await send({ method: 'passkey', response: assertion.response }, button, STEP_UP_TEXT.passkeyButton, null);
        } catch (e) {
          if (!(e instanceof UnreachableError)) throw e;
          busy(button, false, STEP_UP_TEXT.passkeyButton);
          showAlert(alert, unreachable());
        }
      });
      parts.push(button);
    } else passkeyMissing = parts.length === 0;
  }

  const host = hostOf(view.returnTo);
  const withDividers = parts.flatMap((part, i) => (i === 0 ? [part] : [h('p', { class: 'divider' }, h('span', {}, t('login.or'))), part]));
  render(
    ctx,
    STEP_UP_TEXT.heading,
    h('p', { class: 'lead' }, ...(host !== null ? tx('stepUp.lead', { host: h('strong', { dir: 'ltr' }, host) }) : [STEP_UP_TEXT.leadAny])),
    h('p', { class: 'muted', id: 'step-up-account' }, ...tx('stepUp.signedInAs', { user: h('strong', { dir: 'auto' }, view.username) })),
    ...withDividers,
    alert,
    actions(h('a', { href: loginAgainUrl(view.returnTo) }, t('login.otherAccount'))),
  );
  if (parts.length === 0) showAlert(alert, passkeyMissing ? STEP_UP_TEXT.passkeyUnsupported : STEP_UP_TEXT.noMethod);
  (inputs[0] ?? parts[0])?.focus();
}

/** `/login?step_up=<reference>`: what the step-up asks, then the form for just that. */
export async function stepUpPage(ctx: PageContext, ref: string): Promise<void> {
  if (!ctx.user.isLoggedIn) return deadEnd(ctx, 'not_logged_in', null);
  const answer = await api.describeStepUp(ref);
  if (answer.code !== 'step_up') {
    if (DEAD_ENDS.has(answer.code)) return deadEnd(ctx, answer.code, null);
    return deadEnd(ctx, answer.code, null, answer);
  }
  const body = answer.body;
  const view: StepUpView = {
    username: typeof body.username === 'string' ? body.username : ctx.user.username,
    methods: Array.isArray(body.methods) ? body.methods.filter((m): m is string => typeof m === 'string') : [],
    returnTo: typeof body.returnTo === 'string' ? body.returnTo : null,
  };
  stepUpForm(ctx, ref, view);
}
