import { caddyFirstApp, FIRST_APP, nginxFirstApp, PROXIES_DOC } from '../../../src/adapters/http/first-app';
import { api, UnreachableError } from '../api';
import { alertArea, busy, h, showAlert } from '../dom';
import { UNREACHABLE } from '../messages';
import { providerLabel } from '../navigation';
import { goTo, render, replaceWith, type PageContext } from '../page';
import { passkeysSection } from '../passkeys';

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

/** `/logout`: who is logged in, and the button that ends the session. */
export function logoutPage(ctx: PageContext): void {
  if (!ctx.user.isLoggedIn) return replaceWith('/login');
  const { user } = ctx;
  const alert = alertArea('logout-alert');
  const button = h('button', { type: 'button', class: 'primary' }, 'Log out');
  button.addEventListener('click', async () => {
    busy(button, true, 'Logging out…');
    try {
      await api.logout();
      goTo('/login');
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      showAlert(alert, UNREACHABLE);
      busy(button, false, 'Log out');
    }
  });

  const display = user.name !== '' ? user.name : user.username;
  const via = user.oauth ? providerLabel(user.provider, ctx.app.genericName, ctx.app.providers) : null;
  render(
    ctx,
    'Your account',
    h('p', { class: 'lead' }, 'You are logged in as ', h('strong', { id: 'current-user' }, display), '.'),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Username'),
      h('dd', {}, user.username),
      user.email !== '' && h('dt', {}, 'E-mail'),
      user.email !== '' && h('dd', {}, user.email),
      via !== null && h('dt', {}, 'Logged in with'),
      via !== null && h('dd', {}, via),
    ),
    button,
    alert,
    ctx.app.passkeys && !user.oauth && passkeysSection(),
    ctx.app.demo !== null && firstAppSteps(ctx.app.demo.forwardAuth),
  );
  if (ctx.app.demo !== null) ctx.root.classList.add('wide');
  button.focus();
}
