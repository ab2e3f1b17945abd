import { h } from '../dom';
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
  const text: (Node | string)[] = [];
  if (username !== '') text.push('The account ', h('strong', {}, username), ' is not allowed to use ');
  else text.push('You are not allowed to use ');
  text.push(resource !== '' ? h('strong', {}, resource) : 'this application', '.');
  render(
    ctx,
    'Access denied',
    h('p', { class: 'lead' }, ...text),
    reason !== '' && h('p', { class: 'reason' }, reasonText(reason)),
    h('p', {}, 'Ask the administrator for access, or log in with another account.'),
    actions(h('a', { href: ctx.user.isLoggedIn ? '/account' : '/login' }, 'Log in with another account')),
  );
}

/** `/error`: a login that failed on the way (an OAuth provider refusing, a state mismatch, ...). */
export function errorPage(ctx: PageContext): void {
  const reason = param(ctx, 'reason');
  render(
    ctx,
    'Something went wrong',
    h('p', { class: 'lead' }, 'Your login could not be completed.'),
    reason !== '' && h('p', { class: 'reason' }, reasonText(reason)),
    actions(h('a', { href: withRedirect('/login', ctx.redirectUri) }, 'Try again')),
  );
}

/** `/forgot-password`: the administrator's text on how passwords are reset. */
export function forgotPasswordPage(ctx: PageContext): void {
  render(
    ctx,
    'Forgot your password?',
    h('p', { class: 'message' }, ctx.app.forgotPasswordMessage),
    actions(h('a', { href: withRedirect('/login', ctx.redirectUri) }, 'Back to login')),
  );
}

/** Any other path (the gateway answers it with a 404 status). */
export function notFoundPage(ctx: PageContext): void {
  render(
    ctx,
    'Page not found',
    h('p', { class: 'lead' }, 'There is no page at ', h('strong', { translate: 'no' }, location.pathname.slice(0, 200)), '.'),
    actions(h('a', { href: '/login' }, 'Go to the login page')),
  );
}
