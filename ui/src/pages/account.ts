import { caddyFirstApp, FIRST_APP, nginxFirstApp, PROXIES_DOC } from '../../../src/adapters/http/first-app';
import { api, UnreachableError } from '../api';
import { alertArea, busy, h, showAlert } from '../dom';
import { UNREACHABLE } from '../messages';
import { providerLabel } from '../navigation';
import { goTo, render, replaceWith, type PageContext } from '../page';
import { mountPasskeys } from '../passkeys';
import { mountTotpEnrolment } from '../totp-enrolment';

/**
 * The demo's next step under the account: a ready nginx and caddy snippet protecting a local app
 * with this login. Only the throwaway demo sends `demo` in `/api/app`; a real gateway's people are
 * not its operators.
 */
function firstAppSteps(forwardAuth: string): HTMLElement {
  const snippet = (id: string, label: string, text: string): HTMLElement[] => [
    h('h3', { id: `${id}-label` }, label),
    h('pre', { class: 'snippet', id, tabindex: '0', 'aria-labelledby': `${id}-label` }, h('code', {}, text)),
  ];
  return h(
    'section',
    { class: 'next-steps', 'aria-labelledby': 'next-steps-heading' },
    h('h2', { id: 'next-steps-heading' }, 'Next: protect your first app'),
    h(
      'p',
      {},
      'Say your app runs on ',
      h('code', {}, FIRST_APP.upstream),
      '. Put one of these proxies in front of it, open ',
      h('code', {}, FIRST_APP.url),
      ' and this login lets you in. The full examples, with HTTPS, are explained in ',
      h('code', {}, PROXIES_DOC),
      ' of Portcullis.',
    ),
    ...snippet('nginx-snippet', 'nginx (in the http block)', nginxFirstApp(forwardAuth)),
    ...snippet('caddy-snippet', 'Caddy (a Caddyfile)', caddyFirstApp(forwardAuth)),
  );
}

interface SessionView {
  readonly id: string;
  readonly current: boolean;
  readonly method: string;
  readonly browser: string;
  readonly platform: string;
  readonly address: string;
  readonly startedAt: string;
  readonly lastSeenAt: string;
}

interface AccountView {
  readonly user: { readonly username: string; readonly name: string; readonly email: string; readonly groups: readonly string[]; readonly provider: string };
  readonly sessions: readonly SessionView[];
}

const METHOD_LABELS: Readonly<Record<string, string>> = { password: 'Password', totp: 'Password and TOTP code', basic: 'HTTP Basic' };

/** How a person logged in, as words: the password methods by name, OAuth providers by their label. */
function methodLabel(method: string, ctx: PageContext): string {
  return METHOD_LABELS[method] ?? providerLabel(method, ctx.app.genericName, ctx.app.providers);
}

/** A time as the person's browser writes dates; '' for what cannot be read. */
function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

function deviceName(s: SessionView): string {
  const browser = s.browser !== '' ? s.browser : 'Unknown browser';
  return s.platform !== '' ? `${browser} on ${s.platform}` : browser;
}

/**
 * `/account` (and `/logout`, its older address): who is logged in, their sessions with "sign out
 * this one / everywhere else / everywhere", and the mount point of the passkeys section.
 */
export async function accountPage(ctx: PageContext): Promise<void> {
  if (!ctx.user.isLoggedIn) return replaceWith('/login');
  const alert = alertArea('account-alert');
  const status = h('p', { id: 'account-status', class: 'status', role: 'status', 'aria-live': 'polite' });
  const logout = h('button', { type: 'button', class: 'primary' }, 'Log out');
  logout.addEventListener('click', async () => {
    busy(logout, true, 'Logging out…');
    try {
      await api.logout();
      goTo('/login');
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      showAlert(alert, UNREACHABLE);
      busy(logout, false, 'Log out');
    }
  });

  let view: AccountView | null = null;
  try {
    const answer = await api.account();
    if (answer.code === 'ok') view = answer.body as unknown as AccountView;
  } catch (e) {
    if (!(e instanceof UnreachableError)) throw e;
  }

  const { user } = ctx;
  const display = user.name !== '' ? user.name : user.username;
  const groups = view?.user.groups ?? [];
  const current = view?.sessions.find((s) => s.current);
  const sessionsHeading = h('h2', { id: 'sessions-heading', tabindex: '-1' }, 'Where you are signed in');
  const list = h('ul', { class: 'sessions', 'aria-labelledby': 'sessions-heading' });
  const others = h('button', { type: 'button', class: 'secondary', id: 'sign-out-others' }, 'Sign out everywhere else');
  const everywhere = h('button', { type: 'button', class: 'secondary', id: 'sign-out-everywhere' }, 'Sign out everywhere');

  /** Runs one revocation, then shows the new list (or the login page when this session ended). */
  const revoke = async (button: HTMLButtonElement, label: string, target: { id: string } | { scope: 'others' | 'all' }): Promise<void> => {
    busy(button, true, 'Signing out…');
    try {
      const answer = await api.revokeSessions(target);
      if (answer.code === 'sessions_revoked') {
        if (answer.body.endedCurrent === true) return goTo('/login');
        status.textContent = answer.message;
        await refresh();
        sessionsHeading.focus();
        return;
      }
      if (answer.code === 'session_required') return goTo('/login');
      showAlert(alert, answer.message !== '' ? answer.message : UNREACHABLE);
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      showAlert(alert, UNREACHABLE);
    }
    busy(button, false, label);
  };

  const fill = (sessions: readonly SessionView[]): void => {
    list.replaceChildren(
      ...sessions.map((s) => {
        const nameId = `session-${s.id}-name`;
        const button = h('button', { type: 'button', class: 'secondary small', 'aria-describedby': nameId }, 'Sign out');
        button.addEventListener('click', () => void revoke(button, 'Sign out', { id: s.id }));
        return h(
          'li',
          { class: s.current ? 'session current' : 'session', 'data-session': s.id },
          h('h3', { id: nameId }, deviceName(s), s.current && h('span', { class: 'badge' }, ' (this session)')),
          h(
            'dl',
            { class: 'session-facts' },
            h('dt', {}, 'Signed in with'),
            h('dd', {}, methodLabel(s.method, ctx)),
            s.address !== '' && h('dt', {}, 'Address'),
            s.address !== '' && h('dd', {}, s.address),
            h('dt', {}, 'Started'),
            h('dd', {}, when(s.startedAt)),
            h('dt', {}, 'Last seen'),
            h('dd', {}, when(s.lastSeenAt)),
          ),
          button,
        );
      }),
    );
    others.hidden = sessions.filter((s) => !s.current).length === 0;
  };
  const refresh = async (): Promise<void> => {
    const answer = await api.account();
    if (answer.code === 'session_required') return goTo('/login');
    if (answer.code === 'ok') fill((answer.body as unknown as AccountView).sessions);
  };
  others.addEventListener('click', () => void revoke(others, 'Sign out everywhere else', { scope: 'others' }));
  everywhere.addEventListener('click', () => void revoke(everywhere, 'Sign out everywhere', { scope: 'all' }));

  // MOUNT POINT (issue 16, passkeys): an empty, hidden section that ui/src/passkeys.ts fills.
  const passkeys = h('section', { id: 'passkeys-section', class: 'account-section', 'aria-labelledby': 'passkeys-heading', hidden: true });

  render(
    ctx,
    'Your account',
    h('p', { class: 'lead' }, 'You are logged in as ', h('strong', { id: 'current-user' }, display), '.'),
    h(
      'dl',
      { class: 'facts', id: 'who-you-are' },
      h('dt', {}, 'Username'),
      h('dd', {}, user.username),
      user.email !== '' && h('dt', {}, 'E-mail'),
      user.email !== '' && h('dd', {}, user.email),
      groups.length > 0 && h('dt', {}, 'Groups'),
      groups.length > 0 && h('dd', {}, groups.join(', ')),
      current !== undefined && h('dt', {}, 'Logged in with'),
      current !== undefined && h('dd', {}, methodLabel(current.method, ctx)),
    ),
    logout,
    alert,
    // The demo's next step comes first: its operator is trying the gateway out.
    ctx.app.demo !== null && firstAppSteps(ctx.app.demo.forwardAuth),
    view !== null &&
      h(
        'section',
        { class: 'account-section', 'aria-labelledby': 'sessions-heading' },
        sessionsHeading,
        list,
        status,
        h('p', { class: 'session-actions' }, others, everywhere),
      ),
    passkeys,
  );
  if (view !== null) fill(view.sessions);
  mountPasskeys(passkeys, ctx);
  mountTotpEnrolment(passkeys, ctx, () => void refresh());
  ctx.root.classList.add('wide');
  logout.focus();
}
