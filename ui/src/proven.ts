/**
 * The account page's "How you signed in" (issue 33): each method this session proved, with how
 * long ago (and the date and time as the page's language writes them), and the strength that
 * makes, from `/api/user`'s `proven` and `acr`. Pages that ask for a fresh proof (a step-up)
 * move these times forward.
 */
import type { UserContext } from './api';
import { h } from './dom';
import { agoPhrase, locale, t, tx, type MessageKey } from './i18n';

/** The methods a session proves, in the order they are shown (an OAuth login shows its provider). */
const METHODS: readonly (readonly [string, MessageKey])[] = [
  ['password', 'account.proven.password'],
  ['totp', 'account.proven.totp'],
  ['passkey', 'account.proven.passkey'],
];

const LEVELS: Readonly<Record<string, MessageKey>> = { sfa: 'account.acr.sfa', mfa: 'account.acr.mfa', phr: 'account.acr.phr' };

/** One proof's time: "5 minutes ago (3 Dec 2026, 08:15)", the exact instant in a `time` element. */
function proofTime(at: number, now: number): HTMLElement {
  const date = new Date(at);
  const absolute = date.toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' });
  // The date isolated (bdi): in a right-to-left page its digits and brackets keep their order.
  return h('time', { datetime: date.toISOString(), title: absolute }, ...tx('account.provenAt', { ago: agoPhrase(at, now), at: h('bdi', {}, absolute) }));
}

/**
 * The section, or null when `/api/user` tells no proofs (HTTP Basic, an older gateway). `oauthLabel`
 * names the provider of an OAuth login.
 */
export function provenSection(user: UserContext, oauthLabel: string, now: number = Date.now()): HTMLElement | null {
  const proven = user.proven;
  if (proven === undefined || proven === null || typeof proven !== 'object') return null;
  const rows: HTMLElement[] = [];
  const labelled: (readonly [string, string])[] = [...METHODS.map(([m, key]) => [m, t(key)] as const), ['oauth', oauthLabel]];
  for (const [method, label] of labelled) {
    const at = proven[method];
    if (typeof at !== 'number' || !Number.isFinite(at)) continue;
    rows.push(h('dt', { 'data-method': method }, label), h('dd', { 'data-method': method }, proofTime(at, now)));
  }
  const level = typeof user.acr === 'string' && Object.prototype.hasOwnProperty.call(LEVELS, user.acr) ? LEVELS[user.acr] : undefined;
  return h(
    'section',
    { class: 'account-section', id: 'proven-section', 'aria-labelledby': 'proven-heading' },
    h('h2', { id: 'proven-heading' }, t('account.provenHeading')),
    h('p', {}, t('account.provenLead')),
    rows.length === 0
      ? h('p', { class: 'muted', id: 'proven-none' }, t('account.provenNone'))
      : h(
          'dl',
          { class: 'facts', id: 'proven' },
          ...rows,
          level !== undefined && h('dt', {}, t('account.provenLevel')),
          level !== undefined && h('dd', { id: 'proven-level' }, t(level)),
        ),
  );
}
