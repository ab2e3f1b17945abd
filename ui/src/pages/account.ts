import { api, UnreachableError } from '../api';
import { alertArea, busy, h, showAlert } from '../dom';
import { UNREACHABLE } from '../messages';
import { providerLabel } from '../navigation';
import { goTo, render, replaceWith, type PageContext } from '../page';

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
  );
  button.focus();
}
