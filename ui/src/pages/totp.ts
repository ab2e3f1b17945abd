import { api, UnreachableError } from '../api';
import { alertArea, busy, clearAlert, field, h, markInvalid, showAlert } from '../dom';
import { t, tx } from '../i18n';
import { commonProblem, unreachable } from '../messages';
import { withRedirect } from '../navigation';
import { actions, goTo, render, replaceWith, type PageContext } from '../page';
import { passkeyOnlyStep, passkeyOnlyStepPage, passkeySecondFactorButton } from '../passkeys';

/** `/totp`: the one-time code step of a login that is waiting for it. */
export function totpPage(ctx: PageContext): void {
  if (ctx.user.isLoggedIn) return replaceWith(withRedirect('/continue', ctx.redirectUri));
  if (ctx.user.totpPending !== 'true') return replaceWith(withRedirect('/login', ctx.redirectUri));
  if (passkeyOnlyStep(ctx)) return passkeyOnlyStepPage(ctx);

  const alert = alertArea('totp-alert');
  const code = field('code', t('totp.code'), {
    type: 'text',
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    maxlength: '10',
    spellcheck: 'false',
    required: true,
  });
  const submit = h('button', { type: 'submit', class: 'primary' }, t('totp.submit'));
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
    if (!/^\d{6,8}$/.test(value)) return fail(t('totp.format'));
    busy(submit, true, t('totp.submitting'));
    try {
      const answer = await api.totp(value);
      switch (answer.code) {
        case 'logged_in':
          goTo(withRedirect('/continue', ctx.redirectUri));
          return;
        case 'totp_invalid':
          fail(t('totp.totp_invalid'));
          break;
        case 'not_pending':
          fail('', ...tx('totp.not_pending', { link: h('a', { href: withRedirect('/login', ctx.redirectUri) }, t('totp.loginAgain')) }));
          break;
        case 'invalid_fields':
          fail(t('totp.format'));
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
      fail(unreachable());
    }
    busy(submit, false, t('totp.submit'));
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
    t('totp.heading'),
    h('p', { class: 'lead' }, ...(who !== '' ? tx('totp.leadFor', { user: h('strong', {}, who) }) : [t('totp.lead')])),
    form,
    passkey,
    alert,
    actions(h('a', { href: withRedirect('/login', ctx.redirectUri) }, t('login.otherAccount'))),
  );
  code.input.focus();
}
