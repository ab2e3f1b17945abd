import { h } from '../dom';
import { t, tx } from '../i18n';
import { defaultForgotPasswordText } from '../messages';
import { reasonText, withRedirect } from '../navigation';
import { actions, render, type PageContext } from '../page';

/** Query values are shown as text only, and cut short so a crafted link cannot fill the page. */
function param(ctx: PageContext, name: string): string {
  const value = (ctx.params.get(name) ?? '').trim();
  return value.length > 200 ? `${value.slice(0, 200)}…` : value;
}

/** `/unauthorized`: the login worked but this account may not use the resource. */
export function unauthorizedPage(ctx: PageContext): void {
  const username = param(ctx, 'username');
  const resource = param(ctx, 'resource');
  const reason = param(ctx, 'reason');
  const what = resource !== '' ? h('strong', { dir: 'auto' }, resource) : t('unauthorized.thisApp');
  const text =
    username !== '' ? tx('unauthorized.account', { user: h('strong', { dir: 'auto' }, username), resource: what }) : tx('unauthorized.you', { resource: what });
  render(
    ctx,
    t('unauthorized.heading'),
    h('p', { class: 'lead' }, ...text),
    reason !== '' && h('p', { class: 'reason' }, reasonText(reason)),
    h('p', {}, t('unauthorized.ask')),
    actions(h('a', { href: ctx.user.isLoggedIn ? '/account' : '/login' }, t('login.otherAccount'))),
  );
}

/** `/error`: a login that failed on the way (an OAuth provider refusing, a state mismatch, ...). */
export function errorPage(ctx: PageContext): void {
  const reason = param(ctx, 'reason');
  render(
    ctx,
    t('error.heading'),
    h('p', { class: 'lead' }, t('error.lead')),
    reason !== '' && h('p', { class: 'reason' }, reasonText(reason)),
    actions(h('a', { href: withRedirect('/login', ctx.redirectUri) }, t('error.tryAgain'))),
  );
}

/** `/forgot-password`: the administrator's text on how passwords are reset. */
export function forgotPasswordPage(ctx: PageContext): void {
  render(
    ctx,
    t('forgot.heading'),
    h(
      'p',
      { class: 'message', dir: 'auto' },
      ctx.app.forgotPasswordStores ? defaultForgotPasswordText(ctx.app.forgotPasswordStores) : ctx.app.forgotPasswordMessage,
    ),
    actions(h('a', { href: withRedirect('/login', ctx.redirectUri) }, t('forgot.back'))),
  );
}

/** Any other path (the gateway answers it with a 404 status). */
export function notFoundPage(ctx: PageContext): void {
  render(
    ctx,
    t('notFound.heading'),
    h('p', { class: 'lead' }, ...tx('notFound.lead', { path: h('strong', { translate: 'no', dir: 'ltr' }, location.pathname.slice(0, 200)) })),
    actions(h('a', { href: '/login' }, t('notFound.toLogin'))),
  );
}
