import { call, UnreachableError } from '../api';
import { busy, h, showAlert } from '../dom';
import { t } from '../i18n';
import { unreachable } from '../messages';
import { leftFor, when } from './admin-common';

/** What this section needs to know of a person of the console's list. */
export interface InvitablePerson {
  readonly username: string;
  readonly source: string;
  readonly totp: boolean;
  readonly passkeys: number;
}

/** The texts for this section's refusals, by the answer's code. */
function refusalText(code: string): string | null {
  switch (code) {
    case 'last_admin':
      return t('admin.lastFactor');
    case 'not_passkey_only':
      return t('admin.notPasskeyOnly');
    case 'read_only_source':
      return t('admin.readOnly');
    default:
      return null;
  }
}

/**
 * The link an invitation made, to copy: a read-only field (selectable by keyboard and screen
 * readers) and a button that copies it. The link is shown once; nothing keeps it.
 */
export function invitationLinkView(username: string, link: string, expiresAt: string): HTMLElement {
  const id = `invite-link-${username}`;
  const input = h('input', { id, type: 'text', readonly: true, value: link, dir: 'ltr', class: 'invite-link', 'data-invite-link': username });
  const copied = h('span', { role: 'status', 'aria-live': 'polite', class: 'status' });
  const copy = h('button', { type: 'button', class: 'secondary small', 'data-copy-link': username }, t('admin.copy'));
  copy.addEventListener('click', async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(link);
      copied.textContent = t('admin.copied');
    } catch {
      // No clipboard (an insecure context or a refusal): the link stays selected for the keyboard's copy.
    }
  });
  return h(
    'div',
    { class: 'field invite-result' },
    h('p', {}, t('admin.inviteMade', { user: username, time: when(expiresAt) })),
    h('label', { for: id }, t('admin.inviteLink')),
    input,
    copy,
    copied,
  );
}

/**
 * Issue 36, in the console's people list: per person, "password link" (an invitation or a reset)
 * and "passkey link", and removing the TOTP or passkeys they set up. `changed` reloads the lists.
 */
export function invitationActions(person: InvitablePerson, alert: HTMLElement, changed: () => Promise<unknown>): HTMLElement {
  const result = h('div', { class: 'invite-area', 'data-invite-area': person.username });
  const post = async (button: HTMLButtonElement, label: string, working: string, path: string, body: Record<string, unknown>): Promise<void> => {
    busy(button, true, working);
    try {
      const answer = await call<string>('POST', path, body);
      if (answer.code === 'invitation') {
        result.replaceChildren(invitationLinkView(person.username, String(answer.body.link), String(answer.body.expiresAt)));
        result.querySelector('input')?.focus();
      } else if (answer.code === 'totp_removed' || answer.code === 'passkeys_removed') {
        await changed();
        showAlert(alert, t('admin.removed'));
        return;
      } else {
        const own = refusalText(answer.code);
        if (own !== null) showAlert(alert, own);
        else if (leftFor(answer, alert)) return;
      }
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      showAlert(alert, unreachable());
    }
    busy(button, false, label);
  };
  const button = (label: string, working: string, data: string, path: string, body: Record<string, unknown>): HTMLButtonElement => {
    const b = h('button', { type: 'button', class: 'secondary small', [`data-${data}`]: person.username }, label);
    b.addEventListener('click', () => void post(b, label, working, path, body));
    return b;
  };
  const making = t('admin.inviteMaking');
  const removing = t('admin.removing');
  return h(
    'div',
    { class: 'person-actions' },
    person.source === 'file' &&
      button(t('admin.invitePassword'), making, 'invite-password', '/api/admin/invitations', { username: person.username, kind: 'password' }),
    button(t('admin.invitePasskey'), making, 'invite-passkey', '/api/admin/invitations', { username: person.username, kind: 'passkey' }),
    person.totp && button(t('admin.removeTotp'), removing, 'remove-totp', '/api/admin/users/totp/remove', { username: person.username }),
    person.passkeys > 0 && button(t('admin.removePasskeys'), removing, 'remove-passkeys', '/api/admin/users/passkeys/remove', { username: person.username }),
    result,
  );
}
