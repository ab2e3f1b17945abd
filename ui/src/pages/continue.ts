import { h } from '../dom';
import { checkTarget, isProviderReturn, withRedirect } from '../navigation';
import { actions, render, replaceWith, type PageContext } from '../page';

const REFUSALS = {
  not_a_url: 'The address you were sent with is not a valid web address.',
  bad_scheme: 'The address you were sent with is not an http or https address.',
  credentials: 'The address you were sent with contains a user name or password.',
  off_domain: 'The address you were sent with is outside the sites this login protects.',
} as const;

/** `/continue`: where a finished login goes on to, after checking the target is ours to send people to. */
export function continuePage(ctx: PageContext): void {
  if (!ctx.user.isLoggedIn) {
    return replaceWith(withRedirect(ctx.user.totpPending === 'true' ? '/totp' : '/login', ctx.redirectUri));
  }
  if (ctx.redirectUri === null) return replaceWith('/logout');

  const target = checkTarget(ctx.redirectUri, ctx.app.domain);
  if (!target.ok) {
    render(
      ctx,
      'Cannot continue',
      h('p', {}, REFUSALS[target.reason], ' For your safety you are not sent there.'),
      h('p', { class: 'target', translate: 'no' }, ctx.redirectUri),
      actions(h('a', { href: '/logout' }, 'Go to your account')),
    );
    return;
  }

  const href = target.url.toString();
  if (isProviderReturn(target.url, location.origin)) return replaceWith(href);
  if (ctx.app.disableContinue) {
    render(ctx, 'Logged in', h('p', { class: 'lead' }, 'Taking you to ', h('strong', {}, target.url.host), '…'));
    return replaceWith(href);
  }

  const insecure = target.url.protocol === 'http:' && location.protocol === 'https:';
  const go = h('a', { class: 'button primary', href, id: 'continue' }, 'Continue');
  render(
    ctx,
    'You are logged in',
    h('p', { class: 'lead' }, 'Continue to ', h('strong', {}, target.url.host), '?'),
    h('p', { class: 'target', translate: 'no' }, href),
    insecure && h('p', { class: 'warning' }, 'This address does not use HTTPS: what you send there is not encrypted.'),
    go,
    actions(h('a', { href: '/logout' }, 'Not you? Log out')),
  );
  go.focus();
}
