import type { AccessRules, AppRules, DefaultPolicy, NameMatcher, PathPattern, TokenPolicy } from '../../domain/access-rules';
import { describeIpRanges } from '../../domain/ip-address';
import { ok, type Result } from '../../domain/result';
import type { AccessRulesSource } from '../forward-auth/access-rules-source';
import type { AdminGate, AdminRefusal, AdminRequest } from './admin-gate';

/** A path pattern as written: the regular expression, and whether it is matched on `path?query`. */
export interface AdminPathView {
  readonly regex: string;
  readonly query: boolean;
}

/** What a request must have proven (issue 33): a second factor, by which methods, how recently (seconds). */
export interface AdminRequirementView {
  readonly secondFactor: boolean;
  readonly methods: readonly string[] | null;
  readonly maxAge: number | null;
}

/** One `paths` entry of an application, in file order. */
export interface AdminPathRuleView {
  readonly where: string;
  readonly match: AdminPathView;
  readonly methods: readonly string[] | null;
  readonly users: { readonly allow: readonly string[]; readonly block: readonly string[] };
  readonly groups: readonly string[];
  readonly require: AdminRequirementView | null;
}

/**
 * An application's compiled rules, as an administrator reads them. Nothing secret: the response
 * headers are named without their values, and basicauth is only said to be set.
 */
export interface AdminAppView {
  /** Null for the rules of hosts no application claims (the `default` section or the default policy). */
  readonly name: string | null;
  /** Exact hosts, `*.suffix` wildcards, and `label.*` for an application matched by its name. */
  readonly hosts: readonly string[];
  readonly users: { readonly allow: readonly string[]; readonly block: readonly string[] };
  readonly oauthWhitelist: readonly string[];
  readonly groups: readonly string[];
  readonly paths: { readonly allow: readonly AdminPathView[]; readonly block: readonly AdminPathView[] };
  readonly ip: { readonly allow: readonly string[]; readonly block: readonly string[]; readonly bypass: readonly string[] };
  readonly requireSecondFactor: boolean;
  readonly tokens: TokenPolicy;
  readonly assertion: boolean;
  readonly responseHeaders: readonly string[];
  readonly basicauth: boolean;
  readonly pathRules: readonly AdminPathRuleView[];
}

export interface AdminAppsView {
  readonly defaultPolicy: DefaultPolicy;
  readonly apps: readonly AdminAppView[];
  readonly fallback: AdminAppView;
}

const namesOf = (m: NameMatcher): string[] => [...m.literals, ...m.patterns.map((p) => `/${p.source}/${p.flags}`)];
const pathOf = (p: PathPattern): AdminPathView => ({ regex: p.regex.source, query: p.query });

function hostsOf(rules: AccessRules, app: AppRules): string[] {
  const hosts: string[] = [];
  for (const [host, a] of rules.byHost) if (a === app) hosts.push(host);
  for (const { suffix, app: a } of rules.bySuffix) if (a === app) hosts.push(`*${suffix}`);
  for (const [label, a] of rules.byLabel) if (a === app) hosts.push(`${label}.*`);
  return hosts;
}

function appView(rules: AccessRules, app: AppRules): AdminAppView {
  const headers = app.allowed.kind === 'allow' ? Object.keys(app.allowed.headers ?? {}) : [];
  return {
    name: app.name,
    hosts: hostsOf(rules, app),
    users: { allow: namesOf(app.usersAllow), block: namesOf(app.usersBlock) },
    oauthWhitelist: namesOf(app.oauthWhitelist),
    groups: [...app.groups],
    paths: { allow: app.pathAllow.map(pathOf), block: app.pathBlock.map(pathOf) },
    ip: { allow: describeIpRanges(app.ipAllow), block: describeIpRanges(app.ipBlock), bypass: describeIpRanges(app.ipBypass) },
    requireSecondFactor: app.requireTotp,
    tokens: app.tokens,
    assertion: app.assertion,
    responseHeaders: headers.filter((h) => h !== 'authorization').sort(),
    basicauth: headers.includes('authorization'),
    pathRules: app.paths.map((p) => ({
      where: p.where,
      match: pathOf(p.match),
      methods: p.methods === null ? null : [...p.methods],
      users: { allow: namesOf(p.usersAllow), block: namesOf(p.usersBlock) },
      groups: [...p.groups],
      require:
        p.require === null
          ? null
          : {
              secondFactor: p.require.secondFactor,
              methods: p.require.methods === null ? null : [...p.require.methods],
              maxAge: p.require.maxAgeMs === null ? null : Math.round(p.require.maxAgeMs / 1000),
            },
    })),
  };
}

/** The loaded access rules as an administrator reads them (pure; exported for the unit test). */
export function describeAccessRules(rules: AccessRules): AdminAppsView {
  return { defaultPolicy: rules.defaultPolicy, apps: rules.apps.map((a) => appView(rules, a)), fallback: appView(rules, rules.fallback) };
}

/** `GET /api/admin/apps` (issue 36): the access rules in force now (after the latest good reload), read-only. */
export class ListAdminAppsUseCase {
  constructor(
    private readonly gate: AdminGate,
    private readonly rules: AccessRulesSource,
  ) {}

  async execute(request: AdminRequest): Promise<Result<AdminAppsView, AdminRefusal>> {
    const admitted = await this.gate.admit(request);
    if (!admitted.ok) return admitted;
    return ok(describeAccessRules(this.rules.current()));
  }
}
