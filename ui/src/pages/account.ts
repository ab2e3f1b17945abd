import { caddyFirstApp, FIRST_APP, nginxFirstApp, PROXIES_DOC } from '../../../src/adapters/http/first-app';
import { api, UnreachableError } from '../api';
import { alertArea, busy, h, showAlert } from '../dom';
import { listOf, t, tx, type MessageKey } from '../i18n';
import { commonProblem, unreachable } from '../messages';
import { providerLabel } from '../navigation';
import { goTo, render, replaceWith, type PageContext } from '../page';
import { mountPasskeys } from '../passkeys';
import { provenSection } from '../proven';
import { sessionFacts, when } from '../session-facts';
import { mountTokens } from '../tokens';
import { mountTotpEnrolment } from '../totp-enrolment';
import { mountPasswordChange } from '../password-change';

/**
 * The demo's next step under the account: a ready nginx and caddy snippet protecting a local app
 * with this login. Only the throwaway demo sends `demo` in `/api/app`; a real gateway's people are
 * not its operators.
 */
function firstAppSteps(forwardAuth: string): HTMLElement {
  const snippet = (id: string, label: string, text: string): HTMLElement[] => [
    h('h3', { id: `${id}-label` }, label),
    h('pre', { class: 'snippet', id, tabindex: '0', dir: 'ltr', 'aria-labelledby': `${id}-label` }, h('code', {}, text)),
  ];
  return h(
    'section',
    { class: 'next-steps', 'aria-labelledby': 'next-steps-heading' },
    h('h2', { id: 'next-steps-heading' }, t('account.nextHeading')),
    h(
      'p',
      {},
      ...tx('account.nextText', {
        upstream: h('code', { dir: 'ltr' }, FIRST_APP.upstream),
        url: h('code', { dir: 'ltr' }, FIRST_APP.url),
        doc: h('code', { dir: 'ltr' }, PROXIES_DOC),
      }),
    ),
    ...snippet('nginx-snippet', t('account.nextNginx'), nginxFirstApp(forwardAuth)),
    ...snippet('caddy-snippet', t('account.nextCaddy'), caddyFirstApp(forwardAuth)),
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

interface AppView {
  readonly id: string;
  readonly name: string;
  readonly lastLoginAt: string;
}

interface AccountView {
  readonly user: {
    readonly username: string;
    readonly name: string;
    readonly email: string;
    readonly groups: readonly string[];
    readonly provider: string;
    /** Issue 36: a member of ADMIN_GROUPS (absent from older gateways). */
    readonly admin?: boolean;
  };
  readonly sessions: readonly SessionView[];
  /** The OpenID Connect apps that may hold a sign-in of this account (absent from older gateways). */
  readonly apps?: readonly AppView[];
}

const METHOD_LABELS: Readonly<Record<string, MessageKey>> = { password: 'account.method.password', totp: 'account.method.totp', basic: 'account.method.basic' };

/** How a person logged in, as words: the password methods by name, OAuth providers by their label. */
function methodLabel(method: string, ctx: PageContext): string {
  const key = Object.prototype.hasOwnProperty.call(METHOD_LABELS, method) ? METHOD_LABELS[method] : undefined;
  return key !== undefined ? t(key) : providerLabel(method, ctx.app.genericName, ctx.app.providers);
}

function deviceName(s: SessionView): string {
  const browser = s.browser !== '' ? s.browser : t('account.unknownBrowser');
  return s.platform !== '' ? t('account.device', { browser, platform: s.platform }) : browser;
}

/**
 * Issue 35, front-channel logout: the apps' logout pages the gateway named, each in a hidden frame,
 * waited for until they loaded (at most 3 seconds: an app that is down must not keep the person here).
 */
function frontchannelLogout(pages: unknown): Promise<void> {
  const urls = Array.isArray(pages) ? pages.filter((p): p is string => typeof p === 'string' && /^https?:\/\//.test(p)) : [];
  if (urls.length === 0) return Promise.resolve();
  const loads = urls.map(
    (src) =>
      new Promise<void>((resolve) => {
        const frame = h('iframe', { src, title: 'logout', hidden: true, width: '0', height: '0' });
        frame.addEventListener('load', () => resolve());
        frame.addEventListener('error', () => resolve());
        document.body.append(frame);
      }),
  );
  return Promise.race([Promise.all(loads).then(() => undefined), new Promise<void>((resolve) => setTimeout(resolve, 3_000))]);
}

/**
 * `/account` (and `/logout`, its older address): who is logged in, their sessions with "sign out
 * this one / everywhere else / everywhere", the apps holding a sign-in with "sign out of this app",
 * and the mount points of the passkeys and access-token sections.
 */
export async function accountPage(ctx: PageContext): Promise<void> {
  if (!ctx.user.isLoggedIn) return replaceWith('/login');
  const alert = alertArea('account-alert');
  const status = h('p', { id: 'account-status', class: 'status', role: 'status', 'aria-live': 'polite' });
  const logout = h('button', { type: 'button', class: 'primary' }, t('account.logout'));
  logout.addEventListener('click', async () => {
    busy(logout, true, t('account.loggingOut'));
    try {
      const answer = await api.logout();
      await frontchannelLogout(answer.body.frontchannel);
      goTo('/login');
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      showAlert(alert, unreachable());
      busy(logout, false, t('account.logout'));
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
  const sessionsHeading = h('h2', { id: 'sessions-heading', tabindex: '-1' }, t('account.sessionsHeading'));
  const list = h('ul', { class: 'sessions', 'aria-labelledby': 'sessions-heading' });
  const others = h('button', { type: 'button', class: 'secondary', id: 'sign-out-others' }, t('account.signOutOthers'));
  const everywhere = h('button', { type: 'button', class: 'secondary', id: 'sign-out-everywhere' }, t('account.signOutEverywhere'));

  /** Runs one revocation, then shows the new list (or the login page when this session ended). */
  const revoke = async (button: HTMLButtonElement, label: string, target: { id: string } | { scope: 'others' | 'all' }): Promise<void> => {
    busy(button, true, t('account.signingOut'));
    try {
      const answer = await api.revokeSessions(target);
      if (answer.code === 'sessions_revoked') {
        if (answer.body.endedCurrent === true) return goTo('/login');
        status.textContent = t('account.signedOut', { count: typeof answer.body.revoked === 'number' ? answer.body.revoked : 0 });
        await refresh();
        sessionsHeading.focus();
        return;
      }
      if (answer.code === 'session_required') return goTo('/login');
      showAlert(alert, answer.code === 'session_not_found' ? t('account.session_not_found') : commonProblem(answer));
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      showAlert(alert, unreachable());
    }
    busy(button, false, label);
  };

  const appsHeading = h('h2', { id: 'apps-heading', tabindex: '-1' }, t('account.appsHeading'));
  const appList = h('ul', { class: 'sessions', id: 'apps', 'aria-labelledby': 'apps-heading' });
  const appsSection = h(
    'section',
    { class: 'account-section', id: 'apps-section', 'aria-labelledby': 'apps-heading', hidden: true },
    appsHeading,
    h('p', {}, t('account.appsLead')),
    appList,
  );

  /** Ends what one app holds for the person, then shows the new lists. */
  const signOutOfApp = async (button: HTMLButtonElement, app: AppView): Promise<void> => {
    busy(button, true, t('account.signingOut'));
    try {
      const answer = await api.signOutOfApp(app.id);
      if (answer.code === 'app_signed_out' || answer.code === 'app_not_found') {
        if (answer.code === 'app_not_found') showAlert(alert, t('account.app_not_found'));
        else status.textContent = t('account.signedOutOfApp', { app: app.name });
        await refresh();
        appsHeading.focus();
        return;
      }
      if (answer.code === 'session_required') return goTo('/login');
      showAlert(alert, commonProblem(answer));
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      showAlert(alert, unreachable());
    }
    busy(button, false, t('account.signOutOfApp'));
  };

  const fillApps = (apps: readonly AppView[]): void => {
    appList.replaceChildren(
      ...apps.map((app) => {
        const nameId = `app-${app.id}-name`;
        const button = h('button', { type: 'button', class: 'secondary small', 'aria-describedby': nameId }, t('account.signOutOfApp'));
        button.addEventListener('click', () => void signOutOfApp(button, app));
        return h(
          'li',
          { class: 'session', 'data-app': app.id },
          h('h3', { id: nameId }, h('bdi', {}, app.name)),
          h('dl', { class: 'session-facts' }, h('dt', {}, t('account.lastSignIn')), h('dd', {}, when(app.lastLoginAt))),
          button,
        );
      }),
    );
    appsSection.hidden = apps.length === 0;
  };

  const fill = (sessions: readonly SessionView[]): void => {
    list.replaceChildren(
      ...sessions.map((s) => {
        const nameId = `session-${s.id}-name`;
        const button = h('button', { type: 'button', class: 'secondary small', 'aria-describedby': nameId }, t('account.signOut'));
        button.addEventListener('click', () => void revoke(button, t('account.signOut'), { id: s.id }));
        return h(
          'li',
          { class: s.current ? 'session current' : 'session', 'data-session': s.id },
          h('h3', { id: nameId }, deviceName(s), s.current && ' ', s.current && h('span', { class: 'badge' }, t('account.thisSession'))),
          sessionFacts(methodLabel(s.method, ctx), s),
          button,
        );
      }),
    );
    others.hidden = sessions.filter((s) => !s.current).length === 0;
  };
  const refresh = async (): Promise<void> => {
    const answer = await api.account();
    if (answer.code === 'session_required') return goTo('/login');
    if (answer.code !== 'ok') return;
    const body = answer.body as unknown as AccountView;
    fill(body.sessions);
    fillApps(body.apps ?? []);
  };
  others.addEventListener('click', () => void revoke(others, t('account.signOutOthers'), { scope: 'others' }));
  everywhere.addEventListener('click', () => void revoke(everywhere, t('account.signOutEverywhere'), { scope: 'all' }));

  // MOUNT POINT (issue 16, passkeys): an empty, hidden section that ui/src/passkeys.ts fills.
  const passkeys = h('section', { id: 'passkeys-section', class: 'account-section', 'aria-labelledby': 'passkeys-heading', hidden: true });
  // MOUNT POINT (issue 32, access tokens): filled by ui/src/tokens.ts; the two-step code section goes in before it.
  const tokens = h('section', { id: 'tokens-section', class: 'account-section', 'aria-labelledby': 'tokens-heading', hidden: true });

  render(
    ctx,
    t('account.heading'),
    h('p', { class: 'lead' }, ...tx('account.lead', { user: h('strong', { id: 'current-user', dir: 'auto' }, display) })),
    h(
      'dl',
      { class: 'facts', id: 'who-you-are' },
      h('dt', {}, t('account.username')),
      h('dd', {}, h('bdi', {}, user.username)),
      user.email !== '' && h('dt', {}, t('account.email')),
      user.email !== '' && h('dd', {}, h('bdi', { dir: 'ltr' }, user.email)),
      groups.length > 0 && h('dt', {}, t('account.groups')),
      groups.length > 0 && h('dd', {}, listOf(groups)),
      current !== undefined && h('dt', {}, t('account.loggedInWith')),
      current !== undefined && h('dd', {}, methodLabel(current.method, ctx)),
    ),
    logout,
    // Issue 36: the admin console, only for its members (the console itself checks every request again).
    view?.user.admin === true && h('p', { class: 'actions' }, h('a', { href: '/admin', id: 'admin-link' }, t('admin.link'))),
    alert,
    // The demo's next step comes first: its operator is trying the gateway out.
    ctx.app.demo !== null && firstAppSteps(ctx.app.demo.forwardAuth),
    // Issue 33: what this session proved, and when.
    provenSection(user, providerLabel(user.provider, ctx.app.genericName, ctx.app.providers)),
    view !== null &&
      h(
        'section',
        { class: 'account-section', 'aria-labelledby': 'sessions-heading' },
        sessionsHeading,
        list,
        status,
        h('p', { class: 'session-actions' }, others, everywhere),
      ),
    view !== null && appsSection,
    passkeys,
    tokens,
  );
  if (view !== null) {
    fill(view.sessions);
    fillApps(view.apps ?? []);
  }
  // Issue 36: "Change password" goes in before the passkeys, when the password can be changed here.
  mountPasswordChange(passkeys, ctx, () => void refresh());
  mountPasskeys(passkeys, ctx);
  mountTotpEnrolment(passkeys, ctx, () => void refresh());
  mountTokens(tokens, ctx);
  ctx.root.classList.add('wide');
  logout.focus();
}
