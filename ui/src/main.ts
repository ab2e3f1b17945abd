import { api, UnreachableError, type AppContext, type UserContext } from './api';
import { cssUrl } from './background';
import { h } from './dom';
import { t } from './i18n';
import { languageMenu, startLanguage } from './language';
import { unreachable } from './messages';
import { actions, render, replaceWith, type PageContext } from './page';
import { accountPage } from './pages/account';
import { adminPage } from './pages/admin';
import { continuePage } from './pages/continue';
import { enrolPage } from './pages/enrol';
import { invitePage } from './pages/invite';
import { errorPage, forgotPasswordPage, notFoundPage, unauthorizedPage } from './pages/info';
import { loginPage } from './pages/login';
import { totpPage } from './pages/totp';

const PAGES: Record<string, (ctx: PageContext) => void | Promise<void>> = {
  '/login': loginPage,
  '/totp': totpPage,
  '/continue': continuePage,
  '/account': accountPage,
  '/admin': adminPage,
  '/logout': accountPage,
  '/unauthorized': unauthorizedPage,
  '/error': errorPage,
  '/forgot-password': forgotPasswordPage,
  '/enrol': enrolPage,
  '/invite': invitePage,
};

/** BACKGROUND_IMAGE behind the card, through the CSSOM (the CSP allows no inline style). */
function showBackground(value: string): void {
  const url = cssUrl(value);
  if (url === null) return;
  document.documentElement.style.setProperty('--page-image', url);
  document.documentElement.classList.add('has-background');
}

/** The footer under the card, in the page's language, with the language menu before it. */
function showFooter(language: string, menu: readonly string[]): void {
  const footnote = document.querySelector('.footnote');
  if (footnote === null) return;
  footnote.textContent = t('app.footer');
  const nav = languageMenu(language, menu);
  if (nav !== null) footnote.before(nav);
}

async function start(root: HTMLElement): Promise<void> {
  const path = location.pathname.replace(/\/+$/, '') || '/';
  if (path === '/') return replaceWith(`/login${location.search}`);
  const params = new URLSearchParams(location.search);
  const redirect = params.get('redirect_uri');
  let context: { app: AppContext; user: UserContext } | null = null;
  try {
    const [app, user] = await Promise.all([api.app(), api.user()]);
    context = { app, user };
  } catch (e) {
    if (!(e instanceof UnreachableError)) throw e;
  }
  const { language, menu } = await startLanguage(context?.app ?? null);
  showFooter(language, menu);
  if (context !== null) {
    const { app, user } = context;
    showBackground(typeof app.backgroundImage === 'string' ? app.backgroundImage : '');
    const page = PAGES[path] ?? notFoundPage;
    try {
      await page({ root, app, user, params, redirectUri: redirect === null || redirect === '' ? null : redirect });
      return;
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
    }
  }
  const fallback: AppContext = {
    title: document.title,
    genericName: '',
    domain: '',
    forgotPasswordMessage: '',
    forgotPasswordStores: null,
    oauthAutoRedirect: 'none',
    disableContinue: false,
    passkeys: false,
    tokens: false,
    tokenMaxLifetimeDays: 365,
    rememberMe: false,
    configuredProviders: [],
    providers: [],
    backgroundImage: '',
    demo: null,
    language: '',
    languages: [],
  };
  render(
    { root, app: fallback },
    t('app.unreachableHeading'),
    h('p', { class: 'lead' }, unreachable()),
    actions(h('a', { href: location.href }, t('app.reload'))),
  );
}

const root = document.getElementById('app');
if (root !== null) void start(root);
