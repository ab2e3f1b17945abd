/**
 * Passkeys in the login UI: the account page's "Passkeys" section (add, name, list, remove), the
 * login page's "Sign in with a passkey" button and passkey autofill (conditional mediation), and
 * the passkey instead of a code on the TOTP step. The WebAuthn calls go through
 * @simplewebauthn/browser, bundled into the UI by esbuild.
 */
import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  startAuthentication,
  startRegistration,
  WebAuthnAbortService,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { call as apiCall, UnreachableError } from './api';
import type { Answer } from './answer';
import { alertArea, busy, clearAlert, field, h, showAlert } from './dom';
import { locale, messageTable, t } from './i18n';
import { problemText, unreachable } from './messages';
import { withRedirect } from './navigation';
import { actions, goTo, render, type PageContext } from './page';

/** The texts this module added for issue 16 (the second-factor choice, the passkey-only step), by their keys in the message catalogs. */
export const PASSKEY_TEXT = messageTable({
  choiceLabel: 'passkeys.choiceLabel',
  choiceHint: 'passkeys.choiceHint',
  choiceRequired: 'passkeys.choiceRequired',
  choiceNeedsPasskey: 'passkeys.choiceNeedsPasskey',
  choiceSaved: 'passkeys.choiceSaved',
  stepHeading: 'passkeys.stepHeading',
  stepButton: 'passkeys.stepButton',
  stepWaiting: 'passkeys.waiting',
  stepUnsupported: 'passkeys.stepUnsupported',
  otherAccount: 'login.otherAccount',
  lastPasskey: 'passkeys.lastPasskey',
});

/** The passkey-only step's lead, naming the account when the page knows it. */
const stepLead = (who: string): string => (who === '' ? t('passkeys.stepLead') : t('passkeys.stepLeadFor', { user: who }));

/** How long after a passkey is added the account page points it out to the owner (issue 29). */
const RECENT_PASSKEY_MS = 14 * 24 * 60 * 60 * 1000;

/** What a change to the account's passkeys asks for again (issue 29): the password, or a passkey for an account without one. */
type ProofMethod = 'password' | 'passkey';

interface PasskeyView {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

/** The passkey endpoints' answers: their codes are not in the API's shared list, so read as plain strings. */
const call = (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer<string>> => apiCall<string>(method, path, body);

function when(iso: string | null): string {
  if (iso === null) return t('passkeys.never');
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? t('passkeys.unknownDate') : d.toLocaleString(locale());
}

/** Whether an error is the person closing the browser's passkey dialog (or another ceremony taking over). */
function cancelled(e: unknown): boolean {
  const name = (e as { name?: unknown } | null)?.name;
  return name === 'NotAllowedError' || name === 'AbortError';
}

/** The texts for the answers of the account page's passkey endpoints that did not work, by their code. */
const PASSKEY_PROBLEMS = messageTable({
  too_many_passkeys: 'passkeys.too_many_passkeys',
  invalid_name: 'passkeys.invalid_name',
  passkey_not_added: 'passkeys.passkey_not_added',
  passkey_invalid: 'passkeys.passkey_invalid',
  challenge_invalid: 'passkeys.challenge_invalid',
  not_logged_in: 'passkeys.not_logged_in',
  passkey_not_found: 'passkeys.passkey_not_found',
  last_passkey: 'passkeys.lastPasskey',
  invalid_credentials: 'passkeys.confirmWrong',
  reauthentication_required: 'passkeys.confirmMissing',
});

/** The texts for a passkey login that did not work, by its answer's code. */
const LOGIN_PROBLEMS = messageTable({
  passkey_invalid: 'passkeys.loginRefused',
  challenge_invalid: 'passkeys.expired',
  not_pending: 'passkeys.expired',
});

/** The text for a passkey login that did not work. */
const loginProblem = (answer: Answer<string>): string => problemText(answer, LOGIN_PROBLEMS);

/**
 * One passkey login: options, the browser's dialog (or autofill), the answer. Resolves '' when
 * logged in, else a problem text ('' too when the person simply cancelled: `null`).
 */
export async function passkeyLogin(purpose: 'login' | 'second_factor', autofill = false): Promise<string | null> {
  try {
    const options = await call('POST', '/api/passkeys/login/options', { purpose });
    if (options.code !== 'passkey_options') return loginProblem(options);
    let response: unknown;
    try {
      response = await startAuthentication({ optionsJSON: options.body.options as PublicKeyCredentialRequestOptionsJSON, useBrowserAutofill: autofill });
    } catch (e) {
      if (cancelled(e)) return null;
      return t('passkeys.cannotUse');
    }
    const answer = await call('POST', '/api/passkeys/login', { purpose, response });
    return answer.code === 'logged_in' ? '' : loginProblem(answer);
  } catch (e) {
    if (e instanceof UnreachableError) return unreachable();
    throw e;
  }
}

/**
 * A passkey's answer for a step-up (issue 33): the account page's re-authentication ceremony
 * (`purpose: "reauthenticate"`), whose assertion the caller sends on. `{ problem }` when the
 * options could not be had or the browser could not use a passkey; null when the person closed
 * the dialog.
 */
export async function reauthenticationAssertion(): Promise<{ readonly response: unknown } | { readonly problem: Answer<string> | string } | null> {
  const options = await call('POST', '/api/passkeys/login/options', { purpose: 'reauthenticate' });
  if (options.code !== 'passkey_options') return { problem: options };
  try {
    return { response: await startAuthentication({ optionsJSON: options.body.options as PublicKeyCredentialRequestOptionsJSON }) };
  } catch (e) {
    if (cancelled(e)) return null;
    return { problem: t('passkeys.cannotUse') };
  }
}

/** Whether this browser offers WebAuthn here (a secure context with the API). */
export const passkeysSupported = (): boolean => browserSupportsWebAuthn();

/**
 * The login page's passkey parts: a "Sign in with a passkey" button, and the browser's passkey
 * autofill on the username field (which must carry `autocomplete="username webauthn"`). `done`
 * runs after a passkey login; `problem` shows what went wrong.
 */
export function passkeyLoginButton(done: () => void, problem: (text: string) => void): HTMLButtonElement | null {
  if (!browserSupportsWebAuthn()) return null;
  const label = t('passkeys.signIn');
  const button = h('button', { type: 'button', class: 'secondary passkey', id: 'passkey-login' }, label);
  button.addEventListener('click', async () => {
    // The pending autofill request must end before the modal one can start.
    WebAuthnAbortService.cancelCeremony();
    busy(button, true, t('passkeys.waiting'));
    const outcome = await passkeyLogin('login');
    busy(button, false, label);
    if (outcome === '') return done();
    if (outcome !== null) problem(outcome);
    startPasskeyAutofill(done, problem);
  });
  return button;
}

/** Offers the account's passkeys in the username field's autofill, when the browser can. */
export function startPasskeyAutofill(done: () => void, problem: (text: string) => void): void {
  void (async () => {
    if (!(await browserSupportsWebAuthnAutofill().catch(() => false))) return;
    const outcome = await passkeyLogin('login', true);
    if (outcome === '') done();
    else if (outcome !== null) problem(outcome);
  })();
}

/** The TOTP step's "Use a passkey instead" button. */
export function passkeySecondFactorButton(done: () => void, problem: (text: string) => void, label = t('passkeys.instead')): HTMLButtonElement | null {
  if (!browserSupportsWebAuthn()) return null;
  const button = h('button', { type: 'button', class: 'secondary passkey', id: 'passkey-second-factor' }, label);
  button.addEventListener('click', async () => {
    busy(button, true, PASSKEY_TEXT.stepWaiting);
    const outcome = await passkeyLogin('second_factor');
    busy(button, false, label);
    if (outcome === '') return done();
    if (outcome !== null) problem(outcome);
  });
  return button;
}

/** Passkeys added lately, newest first: the owner's other sessions learn of them on the account page (issue 29). */
function recentlyAdded(passkeys: readonly PasskeyView[], now: number): PasskeyView[] {
  return passkeys
    .filter((p) => {
      const added = new Date(p.createdAt).getTime();
      return !Number.isNaN(added) && now - added < RECENT_PASSKEY_MS;
    })
    .reverse();
}

/** The notice naming each recently added passkey, with what to do if it was not the reader. */
function recentNotice(passkeys: readonly PasskeyView[]): HTMLElement {
  const recent = recentlyAdded(passkeys, Date.now());
  const notice = h('div', { class: 'notice', id: 'passkeys-recent', role: 'status', hidden: recent.length === 0 });
  notice.replaceChildren(...recent.map((p) => h('p', {}, t('passkeys.recent', { name: p.name, added: when(p.createdAt) }))));
  return notice;
}

/**
 * Proof that the owner is there, asked before a change that outlives the session (issue 29): the
 * password typed in the section's field, or for a passkey-only account one of its passkeys through
 * a `reauthenticate` ceremony. `send` makes the change with the proof; null when nothing was sent
 * (the field was empty, or the person closed the passkey dialog).
 */
async function proven(
  method: ProofMethod,
  password: HTMLInputElement,
  alert: HTMLElement,
  send: (proof: Readonly<Record<string, unknown>>) => Promise<Answer<string>>,
): Promise<Answer<string> | null> {
  if (method === 'password') {
    if (password.value === '') {
      showAlert(alert, t('passkeys.confirmMissing'));
      password.focus();
      return null;
    }
    const answer = await send({ password: password.value });
    password.value = '';
    if (answer.code === 'invalid_credentials' || answer.code === 'reauthentication_required') password.focus();
    return answer;
  }
  const options = await call('POST', '/api/passkeys/login/options', { purpose: 'reauthenticate' });
  if (options.code !== 'passkey_options') return options;
  try {
    const response = await startAuthentication({ optionsJSON: options.body.options as PublicKeyCredentialRequestOptionsJSON });
    return await send({ reauthentication: response });
  } catch (e) {
    if (e instanceof UnreachableError) throw e;
    if (!cancelled(e)) showAlert(alert, t('passkeys.cannotUse'));
    return null;
  }
}

/**
 * The account page's "Passkeys" section: a notice of passkeys added lately, the list, each with
 * rename and remove, "Add a passkey", and the field that confirms such a change with the password.
 * Null where the browser offers no WebAuthn (or the page is not a secure context).
 */
export function passkeysSection(): HTMLElement | null {
  if (!browserSupportsWebAuthn()) return null;
  const alert = alertArea('passkeys-alert');
  const notice = h('div', { id: 'passkeys-notice' });
  const list = h('ul', { class: 'passkey-list', id: 'passkey-list', 'aria-labelledby': 'passkeys-heading' });
  const name = field('passkey-name', t('passkeys.newName'), { type: 'text', maxlength: '64', placeholder: t('passkeys.namePlaceholder'), autocomplete: 'off' });
  const add = h('button', { type: 'submit', class: 'primary', id: 'passkey-add' }, t('passkeys.add'));
  const form = h('form', { novalidate: true, class: 'passkey-add' }, name.wrapper, add);
  const password = field('passkey-password', t('passkeys.confirmLabel'), { type: 'password', autocomplete: 'current-password' });
  const confirmHint = h('p', { class: 'muted', id: 'passkey-password-hint' }, t('passkeys.confirmHint'));
  password.input.setAttribute('aria-describedby', 'passkey-password-hint');
  password.wrapper.append(confirmHint);
  password.wrapper.hidden = true;
  const passkeyHint = h('p', { class: 'muted', id: 'passkey-confirm-hint', hidden: true }, t('passkeys.confirmPasskey'));
  let method: ProofMethod = 'password';
  const confirm = (send: (proof: Readonly<Record<string, unknown>>) => Promise<Answer<string>>): Promise<Answer<string> | null> =>
    proven(method, password.input, alert, send);
  const choice = secondFactorChoice(alert, confirm);
  const section = h(
    'section',
    { class: 'passkeys', id: 'passkeys', 'aria-labelledby': 'passkeys-heading' },
    h('h2', { id: 'passkeys-heading' }, t('passkeys.heading')),
    h('p', {}, t('passkeys.intro')),
    notice,
    list,
    form,
    choice.wrapper,
    password.wrapper,
    passkeyHint,
    alert,
  );

  const problem = (answer: Answer<string>): void => showAlert(alert, problemText(answer, PASSKEY_PROBLEMS));

  const refresh = async (): Promise<void> => {
    const answer = await call('GET', '/api/passkeys');
    if (answer.code !== 'passkeys') return problem(answer);
    const passkeys = (answer.body.passkeys as PasskeyView[] | undefined) ?? [];
    method = answer.body.reauthentication === 'passkey' ? 'passkey' : 'password';
    password.wrapper.hidden = method !== 'password';
    passkeyHint.hidden = method !== 'passkey';
    notice.replaceChildren(recentNotice(passkeys));
    choice.show(typeof answer.body.secondFactor === 'string' ? answer.body.secondFactor : 'not_applicable', passkeys.length);
    list.replaceChildren(...(passkeys.length === 0 ? [h('li', { class: 'empty' }, t('passkeys.none'))] : passkeys.map((p) => item(p))));
  };

  const item = (p: PasskeyView): HTMLElement => {
    const rename = h('button', { type: 'button', class: 'secondary small', 'aria-label': t('passkeys.renameLabel', { name: p.name }) }, t('passkeys.rename'));
    const remove = h(
      'button',
      { type: 'button', class: 'secondary small danger', 'aria-label': t('passkeys.removeLabel', { name: p.name }) },
      t('passkeys.remove'),
    );
    rename.addEventListener('click', async () => {
      const next = window.prompt(t('passkeys.renamePrompt'), p.name);
      if (next === null) return;
      clearAlert(alert);
      const answer = await call('POST', '/api/passkeys/rename', { id: p.id, name: next });
      if (answer.code !== 'passkey_renamed') return problem(answer);
      await refresh();
    });
    remove.addEventListener('click', async () => {
      clearAlert(alert);
      if (method === 'password' && password.input.value === '') {
        showAlert(alert, t('passkeys.confirmMissing'));
        return password.input.focus();
      }
      if (!window.confirm(t('passkeys.removeConfirm', { name: p.name }))) return;
      try {
        const answer = await confirm((proof) => call('POST', '/api/passkeys/remove', { id: p.id, ...proof }));
        if (answer === null) return;
        if (answer.code !== 'passkey_removed') return problem(answer);
        await refresh();
      } catch (e) {
        if (!(e instanceof UnreachableError)) throw e;
        showAlert(alert, unreachable());
      }
    });
    return h(
      'li',
      { class: 'passkey', 'data-passkey': p.id },
      h('strong', { class: 'passkey-name' }, p.name),
      h('span', { class: 'passkey-dates' }, t('passkeys.dates', { added: when(p.createdAt), used: when(p.lastUsedAt) })),
      h('span', { class: 'passkey-actions' }, rename, remove),
    );
  };

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearAlert(alert);
    const chosen = name.input.value.trim() === '' ? t('passkeys.defaultName') : name.input.value.trim();
    busy(add, true, t('passkeys.waiting'));
    try {
      const options = await confirm((proof) => call('POST', '/api/passkeys/registration/options', proof));
      if (options === null) {
        // Nothing sent: the alert says why.
      } else if (options.code !== 'passkey_options') problem(options);
      else {
        let response: unknown = null;
        try {
          response = await startRegistration({ optionsJSON: options.body.options as PublicKeyCredentialCreationOptionsJSON });
        } catch (e) {
          if (!cancelled(e)) showAlert(alert, t('passkeys.cannotCreate'));
        }
        if (response !== null) {
          const answer = await call('POST', '/api/passkeys/registration', { name: chosen, response });
          if (answer.code === 'passkey_added') {
            name.input.value = '';
            await refresh();
          } else problem(answer);
        }
      }
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      showAlert(alert, unreachable());
    }
    busy(add, false, t('passkeys.add'));
  });

  void refresh().catch(() => showAlert(alert, unreachable()));
  return section;
}

/**
 * Fills the account page's passkeys section (the mount point pages/account.ts leaves: an empty,
 * hidden `<section aria-labelledby="passkeys-heading">`) and shows it. Nothing for OAuth sessions,
 * with PASSKEYS off, or where the browser offers no WebAuthn.
 */
export function mountPasskeys(section: HTMLElement, ctx: PageContext): void {
  if (!ctx.app.passkeys || ctx.user.oauth) return;
  const content = passkeysSection();
  if (content === null) return mountRecentNotice(section);
  section.classList.add('passkeys');
  section.replaceChildren(...Array.from(content.childNodes));
  section.hidden = false;
}

/**
 * Where the browser cannot manage passkeys, the account page still names the passkeys added lately
 * (issue 29): a session elsewhere may have added one without its owner.
 */
function mountRecentNotice(section: HTMLElement): void {
  void call('GET', '/api/passkeys')
    .then((answer) => {
      if (answer.code !== 'passkeys') return;
      const notice = recentNotice((answer.body.passkeys as PasskeyView[] | undefined) ?? []);
      if (notice.hidden) return;
      section.replaceChildren(h('h2', { id: 'passkeys-heading' }, t('passkeys.heading')), notice);
      section.hidden = false;
    })
    .catch(() => undefined);
}

/**
 * "Ask for a passkey after my password" (issue 16): a checkbox saved at once. Hidden for
 * passkey-only accounts; a note instead when PASSKEY_SECOND_FACTOR already asks it of everyone.
 */
function secondFactorChoice(
  alert: HTMLElement,
  confirm: (send: (proof: Readonly<Record<string, unknown>>) => Promise<Answer<string>>) => Promise<Answer<string> | null>,
): { wrapper: HTMLElement; show: (state: string, passkeys: number) => void } {
  const box = h('input', { type: 'checkbox', id: 'passkey-second-factor-choice', 'aria-describedby': 'passkey-second-factor-hint' });
  const hint = h('p', { class: 'hint', id: 'passkey-second-factor-hint' }, PASSKEY_TEXT.choiceHint);
  const wrapper = h(
    'div',
    { class: 'field checkbox', id: 'passkey-second-factor', hidden: true },
    h('label', { for: 'passkey-second-factor-choice' }, box, ' ', PASSKEY_TEXT.choiceLabel),
    hint,
  );
  box.addEventListener('change', async () => {
    clearAlert(alert);
    const wanted = box.checked;
    box.disabled = true;
    try {
      const answer = await confirm((proof) => call('POST', '/api/passkeys/second-factor', { passkey: wanted, ...proof }));
      if (answer === null) box.checked = !wanted;
      else if (answer.code === 'second_factor_chosen') showAlert(alert, PASSKEY_TEXT.choiceSaved);
      else {
        box.checked = !wanted;
        showAlert(alert, answer.code === 'no_passkey' ? PASSKEY_TEXT.choiceNeedsPasskey : problemText(answer, PASSKEY_PROBLEMS));
      }
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      box.checked = !wanted;
      showAlert(alert, unreachable());
    }
    box.disabled = false;
  });
  return {
    wrapper,
    show(state, passkeys) {
      wrapper.hidden = state === 'not_applicable';
      box.checked = state === 'chosen' || state === 'required';
      // Required by the administrator: shown ticked and fixed. Without a passkey there is nothing to ask for yet.
      box.disabled = state === 'required' || (passkeys === 0 && state !== 'chosen');
      hint.textContent = state === 'required' ? PASSKEY_TEXT.choiceRequired : passkeys === 0 ? PASSKEY_TEXT.choiceNeedsPasskey : PASSKEY_TEXT.choiceHint;
    },
  };
}

/** Whether a pending login can be finished with a passkey only (no TOTP to type): the second-factor page then offers just that. */
export function passkeyOnlyStep(ctx: PageContext): boolean {
  const factors = ctx.user.secondFactors;
  return ctx.app.passkeys && factors !== undefined && factors.includes('passkey') && !factors.includes('totp');
}

/** The second-factor page for an account whose second factor is a passkey and that has no TOTP: no code field. */
export function passkeyOnlyStepPage(ctx: PageContext): void {
  const alert = alertArea('totp-alert');
  const who = ctx.user.name !== '' ? ctx.user.name : ctx.user.username;
  const done = (): void => goTo(withRedirect('/continue', ctx.redirectUri));
  const button = passkeySecondFactorButton(done, (text) => showAlert(alert, text), PASSKEY_TEXT.stepButton);
  render(
    ctx,
    PASSKEY_TEXT.stepHeading,
    h('p', { class: 'lead' }, stepLead(who)),
    button,
    alert,
    actions(h('a', { href: withRedirect('/login', ctx.redirectUri) }, PASSKEY_TEXT.otherAccount)),
  );
  if (button === null) showAlert(alert, PASSKEY_TEXT.stepUnsupported);
  else button.focus();
}
