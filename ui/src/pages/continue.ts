import { h } from '../dom';
import { t, tx, type MessageKey } from '../i18n';
import { checkTarget, isProviderReturn, withRedirect } from '../navigation';
import { actions, render, replaceWith, type PageContext } from '../page';

const REFUSALS = {
  not_a_url: 'continue.not_a_url',
  bad_scheme: 'continue.bad_scheme',
  credentials: 'continue.credentials',
  off_domain: 'continue.off_domain',
} as const satisfies Record<string, MessageKey>;

/** `/continue`: where a finished login goes on to, after checking the target is ours to send people to. */
export function continuePage(ctx: PageContext): void {
  if (!ctx.user.isLoggedIn) {
    return replaceWith(withRedirect(ctx.user.totpPending === 'true' ? '/totp' : '/login', ctx.redirectUri));
  }
  if (ctx.redirectUri === null) return replaceWith('/account');

  const target = checkTarget(ctx.redirectUri, ctx.app.domain);
  if (!target.ok) {
    render(
      ctx,
      t('continue.refusedHeading'),
      h('p', {}, t(REFUSALS[target.reason]), ' ', t('continue.safety')),
      h('p', { class: 'target', translate: 'no' }, h('bdi', { dir: 'ltr' }, ctx.redirectUri)),
      actions(h('a', { href: '/account' }, t('continue.toAccount'))),
    );
    return;
  }

  const href = target.url.toString();
  if (isProviderReturn(target.url, location.origin)) return replaceWith(href);
  if (ctx.app.disableContinue) {
    render(ctx, t('continue.loggedInHeading'), h('p', { class: 'lead' }, ...tx('continue.taking', { host: h('strong', { dir: 'ltr' }, target.url.host) })));
    return replaceWith(href);
  }

  const insecure = target.url.protocol === 'http:' && location.protocol === 'https:';
  const go = h('a', { class: 'button primary', href, id: 'continue' }, t('continue.button'));
  render(
    ctx,
    t('continue.heading'),
    h('p', { class: 'lead' }, ...tx('continue.question', { host: h('strong', { dir: 'ltr' }, target.url.host) })),
    h('p', { class: 'target', translate: 'no' }, h('bdi', { dir: 'ltr' }, href)),
    insecure && h('p', { class: 'warning' }, t('continue.insecure')),
    go,
    actions(h('a', { href: '/account' }, t('continue.notYou'))),
  );
  go.focus();
}
