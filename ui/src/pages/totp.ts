import { api, UnreachableError } from '../api';
import { alertArea, busy, clearAlert, field, h, markInvalid, showAlert } from '../dom';
import { commonProblem, UNREACHABLE } from '../messages';
import { withRedirect } from '../navigation';
import { actions, goTo, render, replaceWith, type PageContext } from '../page';
import { passkeyOnlyStep, passkeyOnlyStepPage, passkeySecondFactorButton } from '../passkeys';

/** `/totp`: the one-time code step of a login that is waiting for it. */
export function totpPage(ctx: PageContext): void {
  if (ctx.user.isLoggedIn) return replaceWith(withRedirect('/continue', ctx.redirectUri));
  if (ctx.user.totpPending !== 'true') return replaceWith(withRedirect('/login', ctx.redirectUri));
  if (passkeyOnlyStep(ctx)) return passkeyOnlyStepPage(ctx);

  const alert = alertArea('totp-alert');
  const code = field('code', 'One-time code', {
    type: 'text',
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    maxlength: '10',
    spellcheck: 'false',
    required: true,
  });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Verify');
  const form = h('form', { novalidate: true }, code.wrapper, submit);

  const fail = (text: string, ...extra: (Node | string)[]): void => {
    markInvalid([code.input], true, alert.id);
    showAlert(alert, text, ...extra);
    code.input.select();
    code.input.focus();
  };

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearAlert(alert);
    markInvalid([code.input], false, alert.id);
    const value = code.input.value.replace(/[\s-]/g, '');
    if (!/^\d{6,8}$/.test(value)) return fail('Enter the 6-digit code from your authenticator app.');
    busy(submit, true, 'Verifying…');
    try {
      const answer = await api.totp(value);
      switch (answer.code) {
        case 'logged_in':
          goTo(withRedirect('/continue', ctx.redirectUri));
          return;
        case 'totp_invalid':
          fail('That code is not right. Wait for the next code in your app and try again.');
          break;
        case 'not_pending':
          fail('Your login timed out. ', h('a', { href: withRedirect('/login', ctx.redirectUri) }, 'Log in again'), '.');
          break;
        case 'invalid_fields':
          fail('Enter the 6-digit code from your authenticator app.');
          break;
        case 'account_locked':
        case 'store_unavailable':
        case '':
          fail(commonProblem(answer));
          break;
        default: {
          const unmapped: never = answer.code;
          fail(commonProblem({ ...answer, code: unmapped }));
        }
      }
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      fail(UNREACHABLE);
    }
    busy(submit, false, 'Verify');
  });

  const passkey = ctx.app.passkeys
    ? passkeySecondFactorButton(
        () => goTo(withRedirect('/continue', ctx.redirectUri)),
        (text) => showAlert(alert, text),
      )
    : null;
  const who = ctx.user.name !== '' ? ctx.user.name : ctx.user.username;
  render(
    ctx,
    'Enter your code',
    h('p', { class: 'lead' }, 'Open your authenticator app and enter the current code', who !== '' ? ' for ' : '', who !== '' && h('strong', {}, who), '.'),
    form,
    passkey,
    alert,
    actions(h('a', { href: withRedirect('/login', ctx.redirectUri) }, 'Log in with another account')),
  );
  code.input.focus();
}
