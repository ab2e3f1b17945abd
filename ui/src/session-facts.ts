import { h } from './dom';
import { locale, t } from './i18n';

/** A time as the page's language writes dates; '' for what cannot be read. */
export function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' });
}

/** What a listed session shows on the account page and in the admin console: how, from where, since when, last seen. */
export function sessionFacts(method: string, s: { readonly address: string; readonly startedAt: string; readonly lastSeenAt: string }): HTMLElement {
  return h(
    'dl',
    { class: 'session-facts' },
    h('dt', {}, t('account.signedInWith')),
    h('dd', {}, method),
    s.address !== '' && h('dt', {}, t('account.address')),
    s.address !== '' && h('dd', {}, h('bdi', { dir: 'ltr' }, s.address)),
    h('dt', {}, t('account.started')),
    h('dd', {}, when(s.startedAt)),
    h('dt', {}, t('account.lastSeen')),
    h('dd', {}, when(s.lastSeenAt)),
  );
}
