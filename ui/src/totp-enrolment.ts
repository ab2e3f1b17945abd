/**
 * The account page's "Two-step code" section (issue 16): set up a TOTP code of one's own (a QR
 * code and the secret as text, confirmed with a first code), or remove it again with a current
 * code. An administrator's TOTP (USERS, users file, LDAP) is shown as such and cannot be changed.
 */
import { call as apiCall, UnreachableError } from './api';
import type { Answer } from './answer';
import { alertArea, busy, clearAlert, field, h, markInvalid, showAlert } from './dom';
import { messageTable } from './i18n';
import { problemText, unreachable } from './messages';
import type { PageContext } from './page';

/** Every text this section shows, by its key in the message catalogs (ui/locales), read in the page's language when used. */
export const TOTP_ENROLMENT_TEXT = messageTable({
  heading: 'totpSetup.heading',
  intro: 'totpSetup.intro',
  none: 'totpSetup.none',
  setUp: 'totpSetup.setUp',
  starting: 'totpSetup.starting',
  scan: 'totpSetup.scan',
  qrLabel: 'totpSetup.qrLabel',
  keyLabel: 'totpSetup.keyLabel',
  codeLabel: 'totpSetup.codeLabel',
  passwordLabel: 'totpSetup.passwordLabel',
  passwordHint: 'totpSetup.passwordHint',
  wrongPassword: 'totpSetup.wrongPassword',
  passwordMissing: 'totpSetup.passwordMissing',
  confirm: 'totpSetup.confirm',
  confirming: 'totpSetup.confirming',
  cancel: 'totpSetup.cancel',
  enrolled: 'totpSetup.enrolled',
  removeCodeLabel: 'totpSetup.removeCodeLabel',
  remove: 'totpSetup.remove',
  removing: 'totpSetup.removing',
  administrator: 'totpSetup.administrator',
  turnedOn: 'totpSetup.turnedOn',
  turnedOff: 'totpSetup.turnedOff',
});

/** The texts for the answers of the set-up and removal endpoints that did not work, by their code. */
const TOTP_ENROLMENT_PROBLEMS = messageTable({
  totp_invalid: 'totpSetup.wrongCode',
  invalid_fields: 'totpSetup.codeFormat',
  enrolment_invalid: 'totpSetup.expired',
  totp_already_enrolled: 'totpSetup.alreadyOn',
  totp_not_enrolled: 'totpSetup.notOn',
  not_logged_in: 'totpSetup.sessionEnded',
});

const T = TOTP_ENROLMENT_TEXT;
const SVG = 'http://www.w3.org/2000/svg';

type State = 'none' | 'enrolled' | 'administrator' | 'passkey_only';

/** The TOTP endpoints' answers: their codes are read as plain strings. */
const call = (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer<string>> => apiCall<string>(method, path, body);

/** The QR code as an SVG built with DOM calls (no image URL, no inline markup: the CSP allows neither). */
function qrImage(qr: { size: number; path: string }): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${qr.size} ${qr.size}`);
  svg.setAttribute('width', '200');
  svg.setAttribute('height', '200');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', T.qrLabel);
  svg.setAttribute('class', 'totp-qr');
  svg.setAttribute('shape-rendering', 'crispEdges');
  const background = document.createElementNS(SVG, 'rect');
  background.setAttribute('width', String(qr.size));
  background.setAttribute('height', String(qr.size));
  background.setAttribute('fill', '#ffffff');
  const modules = document.createElementNS(SVG, 'path');
  modules.setAttribute('d', qr.path);
  modules.setAttribute('fill', '#000000');
  svg.append(background, modules);
  return svg;
}

/** A field for a six-digit code from the person's app (a space in the middle allowed, as some apps show it). */
const codeField = (id: string, label: string): ReturnType<typeof field> =>
  field(id, label, { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9 ]*', maxlength: '7', required: true });

/** Groups a base32 key in fours, as authenticator apps show it. */
const grouped = (secret: string): string => secret.replace(/(.{4})(?=.)/g, '$1 ');

const problem = (answer: Answer<string>): string => problemText(answer, TOTP_ENROLMENT_PROBLEMS);

/**
 * Adds the section after `after` (the passkeys section) and fills it from `/api/account/totp`.
 * Nothing for OAuth sessions, which have no local account to hold a second factor. `changed` runs
 * after a set-up or a removal, which signed the account's other sessions out (the page's list).
 */
export function mountTotpEnrolment(after: HTMLElement, ctx: PageContext, changed: () => void = () => undefined): void {
  if (ctx.user.oauth) return;
  const heading = h('h2', { id: 'totp-heading', tabindex: '-1' }, T.heading);
  const body = h('div', { id: 'totp-body' });
  const status = h('p', { id: 'totp-status', class: 'status', role: 'status', 'aria-live': 'polite' });
  const alert = alertArea('totp-alert');
  const section = h('section', { id: 'totp-section', class: 'account-section', 'aria-labelledby': 'totp-heading', hidden: true }, heading, body, status, alert);
  after.after(section);

  const fail = (answer: Answer<string> | null, input?: HTMLInputElement): void => {
    showAlert(alert, answer === null ? unreachable() : problem(answer));
    if (input !== undefined) {
      markInvalid([input], true, 'totp-alert');
      input.focus();
    }
  };

  /** One POST; null when the gateway cannot be reached. */
  const post = async (path: string, payload: unknown): Promise<Answer<string> | null> => {
    try {
      return await call('POST', path, payload);
    } catch (e) {
      if (e instanceof UnreachableError) return null;
      throw e;
    }
  };

  const show = (state: State): void => {
    clearAlert(alert);
    if (state === 'administrator') return body.replaceChildren(h('p', { id: 'totp-administrator' }, T.administrator));
    if (state === 'enrolled') return body.replaceChildren(removeForm());
    const start = h('button', { type: 'button', class: 'primary', id: 'totp-setup' }, T.setUp);
    start.addEventListener('click', () => void begin(start));
    body.replaceChildren(h('p', {}, T.intro), h('p', { id: 'totp-none' }, T.none), start);
  };

  const begin = async (start: HTMLButtonElement): Promise<void> => {
    clearAlert(alert);
    status.textContent = '';
    busy(start, true, T.starting);
    const answer = await post('/api/account/totp/setup', {});
    busy(start, false, T.setUp);
    if (answer === null || answer.code !== 'totp_setup') return fail(answer);
    const secret = String(answer.body.secret);
    const enrolment = String(answer.body.enrolment);
    const code = codeField('totp-code', T.codeLabel);
    const password = field('totp-password', T.passwordLabel, { type: 'password', autocomplete: 'current-password', required: true });
    password.wrapper.append(h('p', { class: 'muted', id: 'totp-password-hint' }, T.passwordHint));
    password.input.setAttribute('aria-describedby', 'totp-password-hint');
    const confirm = h('button', { type: 'submit', class: 'primary', id: 'totp-confirm' }, T.confirm);
    const cancel = h('button', { type: 'button', class: 'secondary', id: 'totp-cancel' }, T.cancel);
    cancel.addEventListener('click', () => {
      show('none');
      heading.focus();
    });
    const form = h('form', { novalidate: true, id: 'totp-setup-form' }, code.wrapper, password.wrapper, confirm, cancel);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      clearAlert(alert);
      markInvalid([code.input, password.input], false, 'totp-alert');
      password.input.setAttribute('aria-describedby', 'totp-password-hint');
      const typed = code.input.value.replace(/\s+/g, '');
      if (!/^\d{6}$/.test(typed)) return fail({ status: 400, code: 'invalid_fields', message: '', body: {}, retryAfter: null }, code.input);
      if (password.input.value === '') {
        showAlert(alert, T.passwordMissing);
        markInvalid([password.input], true, 'totp-alert');
        return password.input.focus();
      }
      busy(confirm, true, T.confirming);
      const done = await post('/api/account/totp/confirm', { enrolment, code: typed, password: password.input.value });
      busy(confirm, false, T.confirm);
      if (done !== null && done.code === 'invalid_credentials') {
        password.input.value = '';
        showAlert(alert, T.wrongPassword);
        markInvalid([password.input], true, 'totp-alert');
        return password.input.focus();
      }
      if (done === null || done.code !== 'totp_enrolled') return fail(done, code.input);
      show('enrolled');
      status.textContent = T.turnedOn;
      changed();
      heading.focus();
    });
    body.replaceChildren(
      h('p', { id: 'totp-scan' }, T.scan),
      h('div', { class: 'totp-qr-frame' }, qrImage(answer.body.qr as { size: number; path: string })),
      h('dl', { class: 'facts' }, h('dt', {}, T.keyLabel), h('dd', {}, h('code', { id: 'totp-secret', 'data-secret': secret }, grouped(secret)))),
      form,
    );
    code.input.focus();
  };

  const removeForm = (): HTMLElement => {
    const code = codeField('totp-remove-code', T.removeCodeLabel);
    const remove = h('button', { type: 'submit', class: 'secondary', id: 'totp-remove' }, T.remove);
    const form = h('form', { novalidate: true, id: 'totp-remove-form' }, code.wrapper, remove);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      clearAlert(alert);
      markInvalid([code.input], false, 'totp-alert');
      const typed = code.input.value.replace(/\s+/g, '');
      if (!/^\d{6}$/.test(typed)) return fail({ status: 400, code: 'invalid_fields', message: '', body: {}, retryAfter: null }, code.input);
      busy(remove, true, T.removing);
      const done = await post('/api/account/totp/remove', { code: typed });
      busy(remove, false, T.remove);
      if (done === null || done.code !== 'totp_removed') return fail(done, code.input);
      show('none');
      status.textContent = T.turnedOff;
      changed();
      heading.focus();
    });
    return h('div', {}, h('p', { id: 'totp-enrolled' }, T.enrolled), form);
  };

  void (async () => {
    let answer: Answer<string>;
    try {
      answer = await call('GET', '/api/account/totp');
    } catch (e) {
      if (e instanceof UnreachableError) return;
      throw e;
    }
    // A passkey-only account has no password to confirm a set-up with: no section at all.
    if (answer.code !== 'totp_enrolment' || answer.body.state === 'passkey_only') return;
    show(answer.body.state as State);
    section.hidden = false;
  })();
}
