/**
 * The account page's "Access tokens" section (issue 32): the account's tokens (name, applications,
 * created, last used, expires; revoked and expired ones marked) with Revoke for each live one, a
 * form that makes one (name, applications, expiry in days), and the new token shown once, with
 * Copy. A password change does not end tokens: the section says so. Hidden with TOKENS off and for
 * OAuth sessions (tokens belong to accounts of the gateway's user store).
 */
import { api, UnreachableError } from './api';
import type { Answer } from './answer';
import { alertArea, busy, clearAlert, field, h, markInvalid, showAlert } from './dom';
import { listOf, locale, messageTable, t } from './i18n';
import { problemText, unreachable } from './messages';
import { goTo, type PageContext } from './page';
import { appsOf, maxDaysOf, MAX_NAME_LENGTH, requestProblems } from './token-form';

/** Every fixed text of the section, by its key in the message catalogs (ui/locales), read in the page's language when used. */
export const TOKENS_TEXT = messageTable({
  heading: 'tokens.heading',
  intro: 'tokens.intro',
  passwordNote: 'tokens.passwordNote',
  none: 'tokens.none',
  applications: 'tokens.applications',
  allApps: 'tokens.allApps',
  created: 'tokens.created',
  lastUsed: 'tokens.lastUsed',
  never: 'tokens.never',
  expires: 'tokens.expires',
  revokedOn: 'tokens.revokedOn',
  revokedBadge: 'tokens.revokedBadge',
  expiredBadge: 'tokens.expiredBadge',
  revoke: 'tokens.revoke',
  revokeYes: 'tokens.revokeYes',
  cancel: 'tokens.cancel',
  revoking: 'tokens.revoking',
  newHeading: 'tokens.newHeading',
  nameLabel: 'tokens.nameLabel',
  namePlaceholder: 'tokens.namePlaceholder',
  appsLabel: 'tokens.appsLabel',
  appsHint: 'tokens.appsHint',
  expiryLabel: 'tokens.expiryLabel',
  create: 'tokens.create',
  creating: 'tokens.creating',
  createdHeading: 'tokens.createdHeading',
  createdWarning: 'tokens.createdWarning',
  copy: 'tokens.copy',
  copied: 'tokens.copied',
  copyFailed: 'tokens.copyFailed',
  done: 'tokens.done',
  invalidName: 'tokens.invalidName',
  invalidApps: 'tokens.invalidApps',
});

/** The texts for the token endpoints' answers that did not work, by their code. */
const TOKEN_PROBLEMS = messageTable({
  too_many_tokens: 'tokens.too_many_tokens',
  token_not_found: 'tokens.token_not_found',
});

const T = TOKENS_TEXT;

interface TokenView {
  readonly id: string;
  readonly name: string;
  /** null: every application the account may open. */
  readonly apps: readonly string[] | null;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly expiresAt: string;
  readonly revokedAt: string | null;
}

/** A time as the page's language writes it; '' for what cannot be read. */
function when(iso: string | null): string {
  if (iso === null) return T.never;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' });
}

/** The token's state: live (it passes), revoked, or expired. */
function stateOf(token: TokenView, now: number): 'live' | 'revoked' | 'expired' {
  if (token.revokedAt !== null) return 'revoked';
  const expires = new Date(token.expiresAt).getTime();
  return !Number.isNaN(expires) && expires <= now ? 'expired' : 'live';
}

/** Puts the text on the clipboard: the Clipboard API where the page may use it, else the selected field's copy command. */
async function copyText(input: HTMLInputElement): Promise<boolean> {
  try {
    if (navigator.clipboard !== undefined && window.isSecureContext) {
      await navigator.clipboard.writeText(input.value);
      return true;
    }
  } catch {
    // Refused (no permission, no focus): try the older way.
  }
  input.focus();
  input.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  }
}

/**
 * Fills the account page's tokens section (the mount point pages/account.ts leaves: an empty,
 * hidden `<section aria-labelledby="tokens-heading">`) and shows it once the list has come.
 * Nothing with TOKENS off, for OAuth sessions, or when the gateway says the account cannot hold one.
 */
export function mountTokens(section: HTMLElement, ctx: PageContext): void {
  if (!ctx.app.tokens || ctx.user.oauth) return;
  const maxDays = maxDaysOf(ctx.app);
  const heading = h('h2', { id: 'tokens-heading', tabindex: '-1' }, T.heading);
  const list = h('ul', { class: 'tokens', id: 'token-list', 'aria-labelledby': 'tokens-heading' });
  const status = h('p', { id: 'tokens-status', class: 'status', role: 'status', 'aria-live': 'polite' });
  const alert = alertArea('tokens-alert');

  // The new token, shown once: a read-only field to select or copy, and the warning.
  const secretHeading = h('h3', { id: 'token-created-heading', tabindex: '-1' }, T.createdHeading);
  const secret = h('input', {
    id: 'token-secret',
    type: 'text',
    readonly: true,
    spellcheck: 'false',
    autocomplete: 'off',
    dir: 'ltr',
    'aria-describedby': 'token-created-warning',
  });
  const secretLabel = h('label', { for: 'token-secret' });
  const copy = h('button', { type: 'button', class: 'secondary small', id: 'token-copy' }, T.copy);
  const done = h('button', { type: 'button', class: 'secondary small', id: 'token-done' }, T.done);
  const created = h(
    'div',
    { class: 'token-created', id: 'token-created', role: 'group', 'aria-labelledby': 'token-created-heading', hidden: true },
    secretHeading,
    h('p', { class: 'warning', id: 'token-created-warning' }, T.createdWarning),
    h('div', { class: 'field' }, secretLabel, secret),
    h('p', { class: 'session-actions' }, copy, done),
  );
  copy.addEventListener('click', async () => {
    const ok = await copyText(secret);
    status.textContent = ok ? T.copied : T.copyFailed;
    if (!ok) {
      secret.focus();
      secret.select();
    }
  });
  done.addEventListener('click', () => {
    // Gone from the page for good: the gateway keeps only a hash of it.
    secret.value = '';
    created.hidden = true;
    status.textContent = '';
    name.input.focus();
  });

  // The form that makes a token.
  const name = field('token-name', T.nameLabel, {
    type: 'text',
    maxlength: String(MAX_NAME_LENGTH),
    placeholder: T.namePlaceholder,
    autocomplete: 'off',
    required: true,
  });
  const apps = field('token-apps', T.appsLabel, { type: 'text', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'token-apps-hint' });
  apps.wrapper.append(h('p', { class: 'hint', id: 'token-apps-hint' }, T.appsHint));
  const expiryHintText = t('tokens.expiryHint', { max: maxDays });
  const expiry = field('token-expiry', T.expiryLabel, {
    type: 'number',
    inputmode: 'numeric',
    min: '1',
    max: String(maxDays),
    step: '1',
    autocomplete: 'off',
    'aria-describedby': 'token-expiry-hint',
  });
  expiry.wrapper.append(h('p', { class: 'hint', id: 'token-expiry-hint' }, expiryHintText));
  const submit = h('button', { type: 'submit', class: 'primary', id: 'token-create' }, T.create);
  const form = h(
    'form',
    { novalidate: true, id: 'token-form', 'aria-labelledby': 'token-form-heading' },
    h('h3', { id: 'token-form-heading' }, T.newHeading),
    name.wrapper,
    apps.wrapper,
    expiry.wrapper,
    submit,
  );
  const hints: ReadonlyArray<readonly [HTMLInputElement, string]> = [
    [name.input, ''],
    [apps.input, 'token-apps-hint'],
    [expiry.input, 'token-expiry-hint'],
  ];

  section.replaceChildren(
    heading,
    h('p', {}, T.intro),
    h('p', { class: 'muted', id: 'tokens-password-note' }, T.passwordNote),
    list,
    status,
    created,
    form,
    alert,
  );
  section.classList.add('tokens-section');

  /** Marks the fields the gateway (or the page) found wrong, says why, and focuses the first. */
  const invalid = (fields: readonly string[]): void => {
    const inputs: Record<string, HTMLInputElement> = { name: name.input, apps: apps.input, expiresInDays: expiry.input };
    const texts: Record<string, string> = { name: T.invalidName, apps: T.invalidApps, expiresInDays: t('tokens.invalidExpiry', { max: maxDays }) };
    const known = fields.filter((f) => Object.prototype.hasOwnProperty.call(inputs, f));
    const wrong = known.length > 0 ? known : ['name'];
    showAlert(alert, wrong.map((f) => texts[f]).join(' '));
    markInvalid(
      wrong.map((f) => inputs[f]),
      true,
      'tokens-alert',
    );
    inputs[wrong[0]].focus();
  };

  const clearInvalid = (): void => {
    for (const [input, hint] of hints) {
      markInvalid([input], false, 'tokens-alert');
      if (hint !== '') input.setAttribute('aria-describedby', hint);
    }
  };

  const problem = (answer: Answer<string> | null): void => {
    if (answer !== null && answer.code === 'session_required') return goTo('/login');
    showAlert(alert, answer === null ? unreachable() : problemText(answer, TOKEN_PROBLEMS));
  };

  /** One request; null when the gateway cannot be reached. */
  const attempt = async <C extends string>(request: () => Promise<Answer<C>>): Promise<Answer<C> | null> => {
    try {
      return await request();
    } catch (e) {
      if (e instanceof UnreachableError) return null;
      throw e;
    }
  };

  const item = (token: TokenView, now: number): HTMLElement => {
    const state = stateOf(token, now);
    const nameId = `token-${token.id}-name`;
    const badge = state === 'revoked' ? T.revokedBadge : state === 'expired' ? T.expiredBadge : '';
    const facts = h(
      'dl',
      { class: 'session-facts' },
      h('dt', {}, T.applications),
      h('dd', {}, token.apps === null ? T.allApps : h('bdi', {}, listOf(token.apps))),
      h('dt', {}, T.created),
      h('dd', {}, when(token.createdAt)),
      h('dt', {}, T.lastUsed),
      h('dd', {}, when(token.lastUsedAt)),
      h('dt', {}, T.expires),
      h('dd', {}, when(token.expiresAt)),
      token.revokedAt !== null && h('dt', {}, T.revokedOn),
      token.revokedAt !== null && h('dd', {}, when(token.revokedAt)),
    );
    const li = h(
      'li',
      { class: state === 'live' ? 'token' : `token ${state}`, 'data-token': token.id, 'data-state': state },
      h('h3', { id: nameId }, h('bdi', {}, token.name), badge !== '' && ' ', badge !== '' && h('span', { class: 'badge' }, badge)),
      facts,
    );
    if (state === 'live') li.append(revokeControls(token, nameId));
    return li;
  };

  /** "Revoke", then a second step in place ("Revoke “name”? Yes, revoke / Cancel"), so one stray click ends nothing. */
  const revokeControls = (token: TokenView, nameId: string): HTMLElement => {
    const revoke = h('button', { type: 'button', class: 'secondary small', 'aria-describedby': nameId }, T.revoke);
    const question = h('p', { id: `token-${token.id}-confirm` }, t('tokens.revokeConfirm', { name: token.name }));
    const yes = h('button', { type: 'button', class: 'primary small', 'aria-describedby': `token-${token.id}-confirm` }, T.revokeYes);
    const no = h('button', { type: 'button', class: 'secondary small' }, T.cancel);
    const confirm = h(
      'div',
      { class: 'token-confirm', role: 'group', 'aria-labelledby': `token-${token.id}-confirm`, hidden: true },
      question,
      h('p', { class: 'session-actions' }, yes, no),
    );
    const wrapper = h('div', {}, revoke, confirm);
    revoke.addEventListener('click', () => {
      clearAlert(alert);
      revoke.hidden = true;
      confirm.hidden = false;
      no.focus();
    });
    no.addEventListener('click', () => {
      confirm.hidden = true;
      revoke.hidden = false;
      revoke.focus();
    });
    yes.addEventListener('click', async () => {
      busy(yes, true, T.revoking);
      no.disabled = true;
      const answer = await attempt(() => api.revokeToken(token.id));
      if (answer !== null && (answer.code === 'token_revoked' || answer.code === 'token_not_found')) {
        if (answer.code === 'token_revoked') status.textContent = t('tokens.revoked', { name: token.name });
        else problem(answer);
        await refresh();
        heading.focus();
        return;
      }
      busy(yes, false, T.revokeYes);
      no.disabled = false;
      problem(answer);
    });
    return wrapper;
  };

  /** Loads the list; false when the account holds no tokens here (OAuth, or the session is gone). */
  const refresh = async (): Promise<boolean> => {
    const answer = await attempt(() => api.tokens());
    if (answer === null || answer.code !== 'tokens') {
      if (answer !== null && (answer.code === 'local_account_required' || answer.code === 'session_required')) return false;
      problem(answer);
      return true;
    }
    const tokens = (answer.body.tokens as TokenView[] | undefined) ?? [];
    const now = Date.now();
    list.replaceChildren(...(tokens.length === 0 ? [h('li', { class: 'empty' }, T.none)] : tokens.map((token) => item(token, now))));
    return true;
  };

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearAlert(alert);
    clearInvalid();
    status.textContent = '';
    const chosen = name.input.value.trim();
    const scope = appsOf(apps.input.value);
    const days = expiry.input.value.trim();
    const wrong = requestProblems(chosen, scope, days, maxDays);
    if (wrong.length > 0) return invalid(wrong);
    busy(submit, true, T.creating);
    const answer = await attempt(() =>
      api.createToken({ name: chosen, ...(scope === undefined ? {} : { apps: scope }), ...(days === '' ? {} : { expiresInDays: Number(days) }) }),
    );
    busy(submit, false, T.create);
    if (answer === null || answer.code !== 'token_created') {
      if (answer !== null && answer.code === 'invalid_fields') return invalid(Array.isArray(answer.body.fields) ? answer.body.fields.map(String) : []);
      return problem(answer);
    }
    secret.value = String(answer.body.token);
    secretLabel.textContent = t('tokens.secretLabel', { name: chosen });
    created.hidden = false;
    form.reset();
    status.textContent = t('tokens.createdStatus', { name: chosen });
    await refresh();
    secret.focus();
    secret.select();
  });

  void refresh().then((shown) => {
    section.hidden = !shown;
  });
}
