import { api, UnreachableError } from '../api';
import { alertArea, busy, clearAlert, field, h, markInvalid, showAlert } from '../dom';
import { t, tx } from '../i18n';
import { commonProblem, unreachable } from '../messages';
import { autoRedirectProvider, checkTarget, oauthProviders, providerLabel, showsPasswordForm, withRedirect } from '../navigation';
import { actions, goTo, render, replaceWith, type PageContext } from '../page';
import { passkeyLoginButton, startPasskeyAutofill } from '../passkeys';
import { stepUpPage } from './step-up';

/** Asks the gateway for the provider's authorization URL and goes there; resolves to an error text when it cannot. */
async function startOAuth(ctx: PageContext, provider: string): Promise<string> {
  const label = providerLabel(provider, ctx.app.genericName, ctx.app.providers);
  try {
    const answer = await api.oauthUrl(provider, ctx.redirectUri);
    const url = answer.body.url;
    if (answer.status === 200 && typeof url === 'string' && /^https?:\/\//i.test(url)) {
      goTo(url);
      return '';
    }
    return answer.code === 'account_locked' || answer.code === 'store_unavailable' ? commonProblem(answer) : t('login.providerFailed', { provider: label });
  } catch (e) {
    if (e instanceof UnreachableError) return unreachable();
    throw e;
  }
}

/** An application asked for a fresh login (OpenID Connect `prompt=login` or `max_age`): the form shows even with a live session. */
const loginAgain = (ctx: PageContext): boolean => ctx.params.get('prompt') === 'login';

function destinationLine(ctx: PageContext): HTMLElement | null {
  if (loginAgain(ctx) && ctx.user.isLoggedIn) return h('p', { class: 'lead' }, t('login.again'));
  if (ctx.redirectUri === null) return null;
  const target = checkTarget(ctx.redirectUri, ctx.app.domain);
  if (!target.ok) return null;
  return h('p', { class: 'lead' }, ...tx('login.continueTo', { host: h('strong', { dir: 'ltr' }, target.url.host) }));
}

function loginForm(ctx: PageContext, initialProblem: string): void {
  const alert = alertArea('login-alert');
  const providers = oauthProviders(ctx.app.configuredProviders);
  const buttons = providers.map((provider) =>
    h(
      'button',
      {
        type: 'button',
        class: `secondary oauth oauth-${provider}`,
        'data-provider': provider,
        onclick: async (ev: Event) => {
          const button = ev.currentTarget as HTMLButtonElement;
          const label = button.textContent ?? '';
          clearAlert(alert);
          busy(button, true, t('login.redirecting'));
          const problem = await startOAuth(ctx, provider);
          if (problem !== '') {
            busy(button, false, label);
            showAlert(alert, problem);
          }
        },
      },
      t('login.withProvider', { provider: providerLabel(provider, ctx.app.genericName, ctx.app.providers) }),
    ),
  );

  let form: HTMLFormElement | null = null;
  let firstInput: HTMLInputElement | null = null;
  if (showsPasswordForm(ctx.app.configuredProviders)) {
    const email = field('email', t('login.username'), {
      type: 'text',
      // `webauthn` lets the browser offer passkeys in this field's autofill (conditional mediation).
      autocomplete: ctx.app.passkeys ? 'username webauthn' : 'username',
      autocapitalize: 'none',
      spellcheck: 'false',
      required: true,
    });
    const password = field('password', t('login.password'), { type: 'password', autocomplete: 'current-password', required: true });
    const submit = h('button', { type: 'submit', class: 'primary' }, t('login.submit'));
    // "Keep me signed in" (issue 33): only when the gateway has REMEMBER_ME_EXPIRY.
    const remember = ctx.app.rememberMe ? h('input', { type: 'checkbox', id: 'remember', name: 'remember' }) : null;
    const rememberField = remember && h('div', { class: 'field checkbox' }, h('label', { for: 'remember' }, remember, ' ', t('login.remember')));
    firstInput = email.input;
    form = h('form', { novalidate: true, 'aria-describedby': 'login-alert' }, email.wrapper, password.wrapper, rememberField, submit);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      clearAlert(alert);
      markInvalid([email.input, password.input], false, alert.id);
      const login = email.input.value.trim();
      const secret = password.input.value;
      const empty = [email.input, password.input].filter((i) => i.value === '' || (i === email.input && login === ''));
      if (empty.length > 0) {
        markInvalid(empty, true, alert.id);
        showAlert(alert, empty.length === 2 ? t('login.missingBoth') : empty[0] === email.input ? t('login.missingUsername') : t('login.missingPassword'));
        empty[0].focus();
        return;
      }
      busy(submit, true, t('login.submitting'));
      try {
        const answer = await api.login(login, secret, remember === null ? undefined : remember.checked);
        switch (answer.code) {
          case 'logged_in':
            goTo(withRedirect(answer.body.totpPending === 'true' ? '/totp' : '/continue', ctx.redirectUri));
            return;
          case 'invalid_credentials':
            markInvalid([email.input, password.input], true, alert.id);
            showAlert(alert, t('login.invalid_credentials'));
            password.input.value = '';
            password.input.focus();
            break;
          case 'invalid_fields':
            showAlert(alert, t('login.missingBoth'));
            break;
          case 'account_locked':
          case 'store_unavailable':
          case '':
            showAlert(alert, commonProblem(answer));
            break;
          default: {
            const unmapped: never = answer.code;
            showAlert(alert, commonProblem({ ...answer, code: unmapped }));
          }
        }
      } catch (e) {
        if (!(e instanceof UnreachableError)) throw e;
        showAlert(alert, unreachable());
      }
      busy(submit, false, t('login.submit'));
    });
  }

  const passkeyDone = (): void => goTo(withRedirect('/continue', ctx.redirectUri));
  const passkeyProblem = (text: string): void => showAlert(alert, text);
  const passkey = ctx.app.passkeys && form !== null ? passkeyLoginButton(passkeyDone, passkeyProblem) : null;
  render(
    ctx,
    t('login.heading'),
    destinationLine(ctx),
    buttons.length > 0 && h('div', { class: 'oauth-list' }, ...buttons),
    buttons.length > 0 && form !== null && h('p', { class: 'divider' }, h('span', {}, t('login.or'))),
    form,
    passkey !== null && h('p', { class: 'divider' }, h('span', {}, t('login.or'))),
    passkey,
    alert,
    form !== null && actions(h('a', { href: withRedirect('/forgot-password', ctx.redirectUri) }, t('login.forgot'))),
  );
  if (initialProblem !== '') showAlert(alert, initialProblem);
  (firstInput ?? buttons[0])?.focus();
  if (passkey !== null) startPasskeyAutofill(passkeyDone, passkeyProblem);
}

/** `/login`: OAuth buttons, the password form, and the forgot-password link; logged-in visitors go on unless asked to log in again. */
export async function loginPage(ctx: PageContext): Promise<void> {
  // Issue 33: a page asked this session for a fresher or stronger proof.
  const stepUp = ctx.params.get('step_up');
  if (stepUp !== null && stepUp !== '') return stepUpPage(ctx, stepUp);
  if (ctx.user.isLoggedIn && !loginAgain(ctx)) return replaceWith(withRedirect('/continue', ctx.redirectUri));
  const auto = autoRedirectProvider(ctx.app.oauthAutoRedirect, ctx.app.configuredProviders, ctx.redirectUri);
  if (auto !== null) {
    render(
      ctx,
      t('login.heading'),
      h('p', { class: 'lead' }, t('login.autoRedirect', { provider: providerLabel(auto, ctx.app.genericName, ctx.app.providers) })),
    );
    const problem = await startOAuth(ctx, auto);
    if (problem === '') return;
    return loginForm(ctx, problem);
  }
  loginForm(ctx, '');
}
