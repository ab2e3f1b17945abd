import { call, UnreachableError } from '../api';
import { busy, h, showAlert } from '../dom';
import { t } from '../i18n';
import { unreachable } from '../messages';
import { leftFor, when } from './admin-common';

interface AdminTokenView {
  readonly id: string;
  readonly username: string;
  readonly name: string;
  readonly apps: readonly string[] | null;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly expiresAt: string;
}

/**
 * Everyone's live access tokens in the console's sessions section (issue 36), each with a revoke
 * button; `changed` reloads the lists after a revocation.
 */
export function adminTokenList(
  alert: HTMLElement,
  status: HTMLElement,
  changed: () => Promise<unknown>,
): { readonly element: HTMLElement; fill(tokens: readonly AdminTokenView[]): void } {
  const list = h('ul', { class: 'sessions', id: 'admin-tokens', 'aria-labelledby': 'admin-tokens-heading' });
  const none = h('p', { id: 'admin-no-tokens', hidden: true }, t('tokens.none'));
  const element = h('div', {}, h('h3', { id: 'admin-tokens-heading' }, t('tokens.heading')), list, none);

  const revoke = async (button: HTMLButtonElement, token: AdminTokenView): Promise<void> => {
    busy(button, true, t('tokens.revoking'));
    try {
      const answer = await call<string>('POST', '/api/admin/tokens/revoke', { id: token.id });
      if (answer.code === 'token_revoked') {
        status.textContent = t('tokens.revoked', { name: token.name });
        await changed();
        return;
      }
      if (leftFor(answer, alert)) return;
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      showAlert(alert, unreachable());
    }
    busy(button, false, t('tokens.revoke'));
  };

  const fill = (tokens: readonly AdminTokenView[]): void => {
    none.hidden = tokens.length > 0;
    list.replaceChildren(
      ...tokens.map((tk) => {
        const nameId = `admin-token-${tk.id}-name`;
        const button = h('button', { type: 'button', class: 'secondary small', 'aria-describedby': nameId, 'data-revoke-token': tk.id }, t('tokens.revoke'));
        button.addEventListener('click', () => void revoke(button, tk));
        return h(
          'li',
          { class: 'session', 'data-token': tk.id, 'data-token-owner': tk.username },
          h('h4', { id: nameId }, h('bdi', {}, tk.username), ' · ', h('bdi', {}, tk.name)),
          h(
            'dl',
            { class: 'session-facts' },
            h('dt', {}, t('tokens.applications')),
            h('dd', {}, tk.apps === null ? t('tokens.allApps') : h('bdi', {}, tk.apps.join(', '))),
            h('dt', {}, t('tokens.created')),
            h('dd', {}, when(tk.createdAt)),
            h('dt', {}, t('tokens.lastUsed')),
            h('dd', {}, tk.lastUsedAt === null ? t('tokens.never') : when(tk.lastUsedAt)),
            h('dt', {}, t('tokens.expires')),
            h('dd', {}, when(tk.expiresAt)),
          ),
          button,
        );
      }),
    );
  };
  return { element, fill };
}
