import { api, UnreachableError, type AppContext } from './api';
import { cssUrl } from './background';
import { h } from './dom';
import { UNREACHABLE } from './messages';
import { actions, render, replaceWith, type PageContext } from './page';
import { accountPage } from './pages/account';
import { continuePage } from './pages/continue';
import { enrolPage } from './pages/enrol';
import { errorPage, forgotPasswordPage, notFoundPage, unauthorizedPage } from './pages/info';
import { loginPage } from './pages/login';
import { totpPage } from './pages/totp';

const PAGES: Record<string, (ctx: PageContext) => void | Promise<void>> = {
  '/login': loginPage,
  '/totp': totpPage,
  '/continue': continuePage,
  '/account': accountPage,
  '/logout': accountPage,
  '/unauthorized': unauthorizedPage,
  '/error': errorPage,
  '/forgot-password': forgotPasswordPage,
  '/enrol': enrolPage,
};

/** BACKGROUND_IMAGE behind the card, through the CSSOM (the CSP allows no inline style). */
function showBackground(value: string): void {
  const url = cssUrl(value);
  if (url === null) return;
  document.documentElement.style.setProperty('--page-image', url);
  document.documentElement.classList.add('has-background');
}

async function start(root: HTMLElement): Promise<void> {
  const path = location.pathname.replace(/\/+$/, '') || '/';
  if (path === '/') return replaceWith(`/login${location.search}`);
  const params = new URLSearchParams(location.search);
  const redirect = params.get('redirect_uri');
  try {
    const [app, user] = await Promise.all([api.app(), api.user()]);
    showBackground(typeof app.backgroundImage === 'string' ? app.backgroundImage : '');
    const page = PAGES[path] ?? notFoundPage;
    await page({ root, app, user, params, redirectUri: redirect === null || redirect === '' ? null : redirect });
  } catch (e) {
    if (!(e instanceof UnreachableError)) throw e;
    const fallback: AppContext = {
      title: document.title,
      genericName: '',
      domain: '',
      forgotPasswordMessage: '',
      oauthAutoRedirect: 'none',
      disableContinue: false,
      passkeys: false,
      configuredProviders: [],
      providers: [],
      backgroundImage: '',
      demo: null,
    };
    render(
      { root, app: fallback },
      'Cannot reach the login service',
      h('p', { class: 'lead' }, UNREACHABLE),
      actions(h('a', { href: location.href }, 'Reload')),
    );
  }
}

const root = document.getElementById('app');
if (root !== null) void start(root);
