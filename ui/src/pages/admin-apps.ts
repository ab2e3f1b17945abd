import { call } from '../api';
import { h } from '../dom';
import { t } from '../i18n';
import { leftFor } from './admin-common';

interface PathView {
  readonly regex: string;
  readonly query: boolean;
}

interface AppView {
  readonly name: string | null;
  readonly hosts: readonly string[];
  readonly users: { readonly allow: readonly string[]; readonly block: readonly string[] };
  readonly groups: readonly string[];
  readonly paths: { readonly allow: readonly PathView[]; readonly block: readonly PathView[] };
  readonly ip: { readonly allow: readonly string[]; readonly block: readonly string[]; readonly bypass: readonly string[] };
  readonly requireSecondFactor: boolean;
  readonly tokens: string;
  readonly pathRules: ReadonlyArray<{
    readonly where: string;
    readonly match: PathView;
    readonly methods: readonly string[] | null;
    readonly groups: readonly string[];
    readonly require: { readonly secondFactor: boolean; readonly methods: readonly string[] | null; readonly maxAge: number | null } | null;
  }>;
}

interface ClientView {
  readonly clientId: string;
  readonly name: string;
  readonly type: string;
  readonly tokenEndpointAuthMethod: string;
  readonly redirectUris: readonly string[];
  readonly postLogoutRedirectUris: readonly string[];
  readonly scopes: readonly string[];
  readonly grantTypes: readonly string[];
  readonly allowedUsers: readonly string[];
  readonly allowedGroups: readonly string[];
  readonly backchannelLogoutUri: string | null;
  readonly frontchannelLogoutUri: string | null;
}

/** A fact of a list: left out when the list is empty; values read left to right (hosts, URLs, patterns). */
function fact(label: string, values: readonly string[]): (HTMLElement | false)[] {
  if (values.length === 0) return [false, false];
  return [h('dt', {}, label), h('dd', {}, h('bdi', { dir: 'ltr' }, values.join(', ')))];
}

const pathText = (p: PathView): string => (p.query ? `${p.regex} (?query)` : p.regex);

function ruleText(r: AppView['pathRules'][number]): string {
  const parts = [pathText(r.match)];
  if (r.methods !== null) parts.push(r.methods.join('|'));
  if (r.groups.length > 0) parts.push(`groups: ${r.groups.join(', ')}`);
  if (r.require !== null) {
    const how = r.require.methods === null ? (r.require.secondFactor ? '2FA' : 'login') : r.require.methods.join('|');
    parts.push(`require: ${how}${r.require.maxAge === null ? '' : ` ≤ ${r.require.maxAge} s`}`);
  }
  return `${r.where}: ${parts.join(' · ')}`;
}

function appItem(a: AppView): HTMLElement {
  const yesNo = (b: boolean): string => (b ? t('admin.yes') : t('admin.no'));
  return h(
    'li',
    { class: 'session', 'data-app': a.name ?? '' },
    h('h3', {}, a.name === null ? t('admin.appsDefault') : h('bdi', {}, a.name)),
    h(
      'dl',
      { class: 'session-facts' },
      ...fact(t('admin.hosts'), a.hosts),
      ...fact(t('admin.usersAllowed'), a.users.allow),
      ...fact(t('admin.usersBlocked'), a.users.block),
      ...fact(t('account.groups'), a.groups),
      ...fact(t('admin.pathsAllowed'), a.paths.allow.map(pathText)),
      ...fact(t('admin.pathsBlocked'), a.paths.block.map(pathText)),
      ...fact(t('admin.ipRules'), [
        ...a.ip.allow.map((r) => `+${r}`),
        ...a.ip.block.map((r) => `−${r}`),
        ...a.ip.bypass.map((r) => `${r} (${t('admin.noLogin')})`),
      ]),
      h('dt', {}, t('admin.secondFactorRequired')),
      h('dd', {}, yesNo(a.requireSecondFactor)),
      h('dt', {}, t('tokens.heading')),
      h('dd', {}, a.tokens),
      ...fact(t('admin.pathRules'), a.pathRules.map(ruleText)),
    ),
  );
}

function clientItem(c: ClientView): HTMLElement {
  return h(
    'li',
    { class: 'session', 'data-client': c.clientId },
    h('h3', {}, h('bdi', {}, c.name !== c.clientId ? `${c.name} (${c.clientId})` : c.clientId)),
    h(
      'dl',
      { class: 'session-facts' },
      h('dt', {}, t('admin.authMethod')),
      h('dd', {}, `${c.type} · ${c.tokenEndpointAuthMethod}`),
      ...fact(t('admin.redirectUris'), c.redirectUris),
      ...fact(t('admin.scopes'), c.scopes),
      ...fact(t('admin.grantTypes'), c.grantTypes),
      h('dt', {}, t('admin.allowedPeople')),
      h(
        'dd',
        {},
        c.allowedUsers.length + c.allowedGroups.length === 0
          ? t('admin.everyone')
          : h('bdi', {}, [...c.allowedUsers, ...c.allowedGroups.map((g) => `@${g}`)].join(', ')),
      ),
      ...fact(
        t('admin.logoutUris'),
        [...c.postLogoutRedirectUris, c.backchannelLogoutUri, c.frontchannelLogoutUri].filter((u): u is string => u !== null),
      ),
    ),
  );
}

/**
 * The console's applications (issue 36): the access rules as loaded and the OIDC clients, both
 * read-only (secrets never reach the page: the server leaves them out). `load` fills both lists.
 */
export function adminAppsSections(alert: HTMLElement): { readonly sections: readonly HTMLElement[]; load(): Promise<boolean> } {
  const policy = h('p', { id: 'admin-default-policy' });
  const apps = h('ul', { class: 'sessions', id: 'admin-apps', 'aria-labelledby': 'apps-heading' });
  const clients = h('ul', { class: 'sessions', id: 'admin-clients', 'aria-labelledby': 'clients-heading' });
  const noClients = h('p', { id: 'admin-no-clients', hidden: true }, t('admin.noClients'));
  return {
    sections: [
      h('section', { class: 'account-section', 'aria-labelledby': 'apps-heading' }, h('h2', { id: 'apps-heading' }, t('admin.appsHeading')), policy, apps),
      h(
        'section',
        { class: 'account-section', 'aria-labelledby': 'clients-heading' },
        h('h2', { id: 'clients-heading' }, t('admin.clientsHeading')),
        clients,
        noClients,
      ),
    ],
    async load() {
      const a = await call<string>('GET', '/api/admin/apps');
      if (a.code !== 'apps') return !leftFor(a, alert) && false;
      const c = await call<string>('GET', '/api/admin/oidc-clients');
      if (c.code !== 'oidc_clients') return !leftFor(c, alert) && false;
      policy.textContent = t('admin.defaultPolicy', { policy: String(a.body.defaultPolicy) });
      apps.replaceChildren(...[...(a.body.apps as readonly AppView[]), a.body.fallback as AppView].map(appItem));
      const list = c.body.clients as readonly ClientView[];
      clients.replaceChildren(...list.map(clientItem));
      noClients.hidden = list.length > 0;
      return true;
    },
  };
}
