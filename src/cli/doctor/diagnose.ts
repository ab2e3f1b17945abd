import { isWithinDomain, protectedDomainOf } from '../../domain/cookie-domain';
import { TldtsPublicSuffixList } from '../../adapters/system/tldts-public-suffix-list';
import type { Finding } from './findings';
import { headerOf, type ProbeAnswer, type ProbeRequest, type ProbeTransport } from './probe-transport';

export interface DiagnoseOptions {
  /** The protected URL, as a browser would visit it. */
  readonly url: URL;
  /** An account to log in with (`--as`); without it the checks that need a session are skipped. */
  readonly login?: { readonly username: string; readonly password: string };
  /** A path the access rules leave public (`--public-path`): ambiguous paths then aim at it. */
  readonly publicPath?: string;
  /** Random hex that makes every spoofed value recognisable wherever it surfaces. */
  readonly marker: string;
}

type Report = (finding: Finding) => void;

/** What a login redirect without `redirect_uri` means: Portcullis would not send the browser back there. */
const OUTSIDE = 'a URL outside the protected domain (the login redirect names no redirect_uri)';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8';
const USER_AGENT = 'portcullis-doctor';

/** Where an anonymous visit was sent: the login page, and the URL Portcullis decided on (its `redirect_uri`). */
interface LoginRedirect {
  readonly loginUrl: URL;
  readonly decided: string | null;
}

const FIX = {
  forwarded:
    "the proxy must set these headers itself on the forward-auth request, never pass the client's: nginx: proxy_set_header X-Original-URL $scheme://$host$request_uri; and X-Forwarded-Host $host, X-Forwarded-Uri $request_uri, X-Forwarded-Proto $scheme in the auth location; Caddy and Traefik: do not list the clients' networks in trusted_proxies / forwardedHeaders.trustedIPs",
  originalUrl:
    'nginx: set X-Original-URL yourself in the auth location (proxy_set_header X-Original-URL $scheme://$host$request_uri;); Caddy: request_header -X-Original-URL; Traefik: a headers middleware that clears it',
  remote:
    'overwrite or drop every Remote-* header the client sends: nginx: proxy_set_header Remote-User $portcullis_user; (and Remote-Name, Remote-Email, Remote-Groups) in each protected location; Caddy: request_header -Remote-User (and -Name, -Email, -Groups) before forward auth',
  upstreamForwarded:
    'clear or overwrite them on the way to the app: nginx: proxy_set_header X-Forwarded-Host $host; proxy_set_header X-Forwarded-Uri ""; proxy_set_header X-Original-URL ""; Caddy: request_header -X-Original-URL and -X-Forwarded-Uri before reverse_proxy',
  authApi:
    'publish only the login UI and the browser API: answer /api/auth/ with 404 at the proxy (nginx: location /api/auth/ { return 404; }; Caddy: handle /api/auth/* { respond 404 }), or give forward auth its own internal listener (FORWARD_AUTH_PORT) and let the proxy reach only that',
  defaultServer:
    'make the proxy refuse hosts it does not serve: nginx: server { listen 443 ssl default_server; server_name _; return 444; } (and the same for port 80); Caddy: a catch-all site (https:// or :443) with abort; give every site an explicit host name',
  host: 'decide on the host nginx routed by: use $host (never $http_host) in X-Original-URL, X-Forwarded-Host and the upstream Host header, and add a default server that returns 444',
  ambiguous:
    'protect the whole host rather than chosen prefixes (auth_request / forward_auth in every location), refuse paths with encoded separators or dot-segments at the proxy, let the access rules be the only place that makes paths public, and run a Portcullis that refuses ambiguous paths (400)',
  secure: 'serve the login over https and leave COOKIE_SECURE unset (it follows an https APP_URL) or set it to true',
  httpOnly: "a cookie without HttpOnly can be read by any script on the page: use Portcullis's own Set-Cookie unchanged (no proxy rewriting of the cookie)",
  sameSite: "SameSite=Lax (Portcullis's default) keeps the cookie off cross-site form posts: do not rewrite the cookie at the proxy",
  domain:
    "APP_URL's host minus its first label is the cookie domain: put the login host next to the apps (auth.example.com for app.example.com), or the browser never sends the session to the app",
};

/**
 * Probes a live proxy from the outside and reports each finding as it is made. Every check
 * compares an answer with a baseline answer to the same URL, so it works without knowing the
 * proxy's kind or its configuration; spoofed values carry the marker, so one that surfaces in
 * a decision (the login redirect's `redirect_uri`) or in the app's answer is unmistakable.
 */
export async function diagnose(options: DiagnoseOptions, send: ProbeTransport, report: Report): Promise<void> {
  const { url } = options;
  const target = `${url.pathname}${url.search}`;
  const base = await send(probe(url, 'GET', target, browserHeaders(url.host)));
  if (base.kind !== 'answer') {
    report({
      verdict: 'FAIL',
      check: 'baseline',
      message: `no answer from ${url.origin}: ${describe(base)}`,
      fix:
        base.kind === 'unreachable' && base.failure === 'untrusted_certificate'
          ? "trust the proxy's CA for this run: NODE_EXTRA_CA_CERTS=/path/to/root.crt portcullis doctor … (Caddy's internal CA: pki/authorities/local/root.crt in Caddy's data directory, e.g. ~/.local/share/caddy or /var/lib/caddy/.local/share/caddy), or --insecure for a throwaway test proxy"
          : 'check the URL, and give --resolve <host>:<address> when its name does not resolve from here',
    });
    return;
  }
  const login = loginRedirect(base, url);
  if (login === null) {
    if (base.status >= 200 && base.status < 300) {
      report({
        verdict: 'FAIL',
        check: 'baseline',
        message: `an anonymous visit to ${url.href} is served (${base.status}) without a login`,
        fix: 'ask Portcullis about every request of this site (nginx: auth_request in every location; Caddy: forward_auth / the Caddyfile example; Traefik: the forwardAuth middleware on the router), or name a URL the access rules protect',
      });
    } else {
      const location = headerOf(base, 'location');
      const toHttps = url.protocol === 'http:' && location !== undefined && location.startsWith('https://');
      report({
        verdict: 'FAIL',
        check: 'baseline',
        message: `an anonymous visit to ${url.href} got ${describe(base)}, not a redirect to the login page`,
        fix: toHttps
          ? 'the site moves visitors to https: run the doctor on the https:// URL'
          : 'give a protected URL; browsers (Accept: text/html) must be sent to the login page',
      });
    }
    return;
  }
  report({ verdict: 'PASS', check: 'baseline', message: `an anonymous visit is sent to the login page ${login.loginUrl.origin}${login.loginUrl.pathname}` });

  await spoofedDecisionHeaders(options, send, report, base, login);
  await ambiguousPaths(options, send, report);
  await unknownHosts(options, send, report, login);

  const loginOrigin = new URL(login.loginUrl.origin);
  let cookie: string | null = null;
  if (options.login === undefined) {
    report({ verdict: 'SKIP', check: 'session', message: 'the session cookie, and client headers reaching the app, are checked only with --as <user>' });
  } else {
    cookie = await logIn(options, send, report, loginOrigin);
  }
  await forwardAuthExposure(options, send, report, loginOrigin, cookie);
  await loginHostRoutes(send, report, loginOrigin, cookie);
  if (cookie !== null) await spoofedUpstreamHeaders(options, send, report, cookie);
  if (cookie !== null) await accessTokenReachesApp(options, send, report, loginOrigin, cookie);
}

/**
 * The login host's pages and browser API beyond the login itself (issue 30): the account page,
 * passkeys, TOTP set-up, the enrolment link, the hand-off and OpenID Connect. Each must reach the
 * gateway: its answers carry `X-Request-Id`, whatever their status (a feature that is off still
 * answers, in the gateway's own words); a proxy that lists paths by hand answers 404 itself.
 */
const LOGIN_HOST_ROUTES = [
  '/account',
  '/enrol',
  '/api/account',
  '/api/account/totp',
  '/api/passkeys',
  '/api/passkeys/login/options',
  '/api/handoff/start',
  '/.well-known/openid-configuration',
  '/oidc/jwks',
];

/** The shipped file that routes the login host, by the proxy's `Server` header. */
function proxyFileOf(server: string | undefined): string {
  const name = (server ?? '').toLowerCase();
  if (name.startsWith('nginx')) return 'examples/nginx/auth.conf.template (location / to the gateway)';
  if (name.includes('caddy')) return 'examples/caddy/Caddyfile (the login host site: reverse_proxy everything but /api/auth/*)';
  return 'the proxy configuration of the login host: send every path but /api/auth/* to the gateway (docs/proxies.md, rule 1)';
}

async function loginHostRoutes(send: ProbeTransport, report: Report, loginOrigin: URL, cookie: string | null): Promise<void> {
  const missed: string[] = [];
  let server: string | undefined;
  for (const path of LOGIN_HOST_ROUTES) {
    const headers: Array<[string, string]> = [
      ['Host', loginOrigin.host],
      ['User-Agent', USER_AGENT],
      ['Accept', path.startsWith('/api/') || path.startsWith('/oidc/') || path.startsWith('/.well-known/') ? 'application/json' : 'text/html'],
    ];
    if (cookie !== null) headers.push(['Cookie', cookie]);
    const answer = await send(probe(loginOrigin, 'GET', path, headers));
    if (answer.kind === 'answer' && answer.headers.has('x-request-id')) continue;
    missed.push(`${path} (${describe(answer)})`);
    if (answer.kind === 'answer') server ??= answer.headers.get('server')?.[0];
  }
  if (missed.length === 0) {
    report({
      verdict: 'PASS',
      check: 'login-host-routes',
      message: `the account, passkey, TOTP, enrolment, hand-off and OpenID Connect paths reach Portcullis through ${loginOrigin.origin}`,
    });
    return;
  }
  report({
    verdict: 'FAIL',
    check: 'login-host-routes',
    message: `the proxy answers for Portcullis on ${loginOrigin.origin}, so these features fail there: ${missed.join('; ')}`,
    fix: `fix ${proxyFileOf(server)}`,
  });
}

function probe(url: URL, method: string, target: string, headers: Array<[string, string]>, body?: string): ProbeRequest {
  return {
    scheme: url.protocol === 'https:' ? 'https' : 'http',
    hostname: url.hostname,
    port: url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
    method,
    target,
    headers,
    body,
  };
}

function browserHeaders(host: string, extra: Array<[string, string]> = []): Array<[string, string]> {
  return [['Host', host], ['User-Agent', USER_AGENT], ['Accept', BROWSER_ACCEPT], ...extra];
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

function loginRedirect(answer: ProbeAnswer, base: URL): LoginRedirect | null {
  if (answer.kind !== 'answer' || !isRedirect(answer.status)) return null;
  const location = headerOf(answer, 'location');
  if (location === undefined) return null;
  let to: URL;
  try {
    to = new URL(location, base);
  } catch {
    return null;
  }
  if (!/\/login\/?$/.test(to.pathname)) return null;
  return { loginUrl: to, decided: to.searchParams.get('redirect_uri') };
}

/** An answer in a few words, for the report. */
function describe(answer: ProbeAnswer): string {
  switch (answer.kind) {
    case 'closed':
      return 'the connection closed without an answer';
    case 'unreachable':
      return answer.reason;
    case 'answer': {
      const location = headerOf(answer, 'location');
      return location === undefined ? `${answer.status}` : `${answer.status} → ${location}`;
    }
    default: {
      const unreachable: never = answer;
      return String(unreachable);
    }
  }
}

function served(answer: ProbeAnswer): boolean {
  return answer.kind === 'answer' && answer.status >= 200 && answer.status < 300;
}

/** The host name of a URL string, or null. */
function hostnameOf(href: string | null): string | null {
  if (href === null) return null;
  try {
    return new URL(href).hostname;
  } catch {
    return null;
  }
}

const publicSuffixes = new TldtsPublicSuffixList();

/** A host that cannot exist but that a cookie domain would still cover (so Portcullis keeps its redirect_uri). */
function spoofHostFor(hostname: string, marker: string): string {
  const labels = hostname.split('.');
  const isIp = /^[\d.]+$/.test(hostname) || hostname.startsWith('[');
  const parent = !isIp && labels.length >= 3 ? labels.slice(1).join('.') : 'invalid';
  return `portcullis-doctor-${marker}.${parent}`;
}

async function spoofedDecisionHeaders(options: DiagnoseOptions, send: ProbeTransport, report: Report, base: ProbeAnswer, login: LoginRedirect): Promise<void> {
  const { url, marker } = options;
  const target = `${url.pathname}${url.search}`;
  const otherPath = options.publicPath ?? `/portcullis-doctor-${marker}`;
  const spoofs: Array<{ check: string; what: string; headers: Array<[string, string]>; fix: string }> = [
    { check: 'x-forwarded-host', what: 'X-Forwarded-Host', headers: [['X-Forwarded-Host', spoofHostFor(url.hostname, marker)]], fix: FIX.forwarded },
    { check: 'x-forwarded-uri', what: 'X-Forwarded-Uri', headers: [['X-Forwarded-Uri', otherPath]], fix: FIX.forwarded },
    {
      check: 'x-forwarded-proto',
      what: 'X-Forwarded-Proto',
      headers: [['X-Forwarded-Proto', url.protocol === 'https:' ? 'http' : 'https']],
      fix: FIX.forwarded,
    },
    { check: 'x-original-url', what: 'X-Original-URL', headers: [['X-Original-URL', `${url.protocol}//${url.host}${otherPath}`]], fix: FIX.originalUrl },
    {
      check: 'remote-headers',
      what: 'Remote-User: admin (with Remote-Groups: admins)',
      headers: [
        ['Remote-User', 'admin'],
        ['Remote-Groups', 'admins'],
        ['Remote-Email', 'admin@localhost'],
      ],
      fix: FIX.remote,
    },
  ];
  for (const spoof of spoofs) {
    const answer = await send(probe(url, 'GET', target, browserHeaders(url.host, spoof.headers)));
    const sentBy = `a client's ${spoof.what}`;
    if (served(answer)) {
      report({
        verdict: 'FAIL',
        check: spoof.check,
        message: `with ${sentBy} an anonymous request is served (${describe(answer)}) instead of sent to the login page`,
        fix: spoof.fix,
      });
      continue;
    }
    const seen = loginRedirect(answer, url);
    if (seen !== null && seen.decided === login.decided) {
      report({ verdict: 'PASS', check: spoof.check, message: `${sentBy} does not reach the decision (the same login redirect as without it)` });
    } else if (seen !== null) {
      report({
        verdict: 'FAIL',
        check: spoof.check,
        message: `${sentBy} reaches the decision: Portcullis decided on ${seen.decided ?? OUTSIDE} instead of ${login.decided ?? 'the URL asked for'}`,
        fix: spoof.fix,
      });
    } else if (sameAnswer(answer, base)) {
      report({ verdict: 'PASS', check: spoof.check, message: `${sentBy} does not change the answer` });
    } else {
      report({
        verdict: 'WARN',
        check: spoof.check,
        message: `${sentBy} changes the answer (${describe(answer)} instead of ${describe(base)}): it reaches the proxy's decision or Portcullis`,
        fix: spoof.fix,
      });
    }
  }
}

function sameAnswer(a: ProbeAnswer, b: ProbeAnswer): boolean {
  if (a.kind !== 'answer' || b.kind !== 'answer') return a.kind === b.kind;
  return a.status === b.status && headerOf(a, 'location') === headerOf(b, 'location');
}

/**
 * Signs that an answer came from Portcullis's forward-auth endpoint itself rather than from a
 * proxy protecting that path or an app serving it: only the endpoint sends X-Portcullis-Location
 * or Remote-User to the client, names an unknown proxy, or says "Authenticated". On the login
 * host, where nothing sits behind a login, a 401 or a login redirect is one too (with the probe's
 * own URL in it when the proxy passed the probe's headers on).
 */
function forwardAuthSign(answer: ProbeAnswer, marker: string, onLoginHost: boolean, loginOrigin: URL): string | null {
  if (answer.kind !== 'answer') return null;
  if (headerOf(answer, 'x-portcullis-location') !== undefined) return `${answer.status} with an X-Portcullis-Location header`;
  if (headerOf(answer, 'remote-user') !== undefined) return `${answer.status} with a Remote-User header`;
  if (answer.status === 400 && answer.body.includes('Unknown proxy')) return '400 "Unknown proxy"';
  if (answer.status === 200 && /^\s*\{\s*"status"\s*:\s*200\s*,\s*"message"\s*:\s*"Authenticated"/.test(answer.body)) return '200 "Authenticated"';
  if (!onLoginHost) return null;
  const location = headerOf(answer, 'location');
  if (answer.status === 401) return '401';
  if (location !== undefined && isRedirect(answer.status) && (location.includes(marker) || location.startsWith(`${loginOrigin.origin}/login`)))
    return `${answer.status} → the login page`;
  return null;
}

/**
 * Asks the forward-auth endpoint a question through the public login host and through the app's
 * host, as an outsider would: once anonymously and, with --as, once with the session cookie (an
 * exposed endpoint then answers 200 with the identity headers). The fourth, unknown proxy name
 * is answered "Unknown proxy" by the endpoint alone, whatever the proxy passes on.
 */
async function forwardAuthExposure(options: DiagnoseOptions, send: ProbeTransport, report: Report, loginOrigin: URL, cookie: string | null): Promise<void> {
  const { url, marker } = options;
  const askedPath = `/portcullis-doctor-${marker}`;
  // A login page on the app's own origin is behind the same proxy rules as the app: one check, without the login-host signs.
  const origins = [
    ...(loginOrigin.origin === url.origin ? [] : [{ check: 'auth-api-login-host', origin: loginOrigin, onLoginHost: true }]),
    { check: 'auth-api-app-host', origin: new URL(url.origin), onLoginHost: false },
  ];
  for (const { check, origin, onLoginHost } of origins) {
    const signs: string[] = [];
    const statuses: string[] = [];
    for (const withCookie of cookie === null ? [false] : [false, true]) {
      for (const name of ['nginx', 'traefik', 'caddy', `portcullis-doctor-${marker}`]) {
        const headers: Array<[string, string]> = [
          ['Host', origin.host],
          ['User-Agent', USER_AGENT],
          ['Accept', 'application/json'],
          ['X-Original-URL', `${url.protocol}//${url.host}${askedPath}`],
          ['X-Forwarded-Proto', url.protocol.slice(0, -1)],
          ['X-Forwarded-Host', url.host],
          ['X-Forwarded-Uri', askedPath],
        ];
        if (withCookie && cookie !== null) headers.push(['Cookie', cookie]);
        const answer = await send(probe(origin, 'GET', `/api/auth/${name}`, headers));
        statuses.push(answer.kind === 'answer' ? String(answer.status) : answer.kind);
        const sign = forwardAuthSign(answer, marker, onLoginHost, loginOrigin);
        if (sign !== null) signs.push(`GET /api/auth/${name}${withCookie ? ' with the session cookie' : ''} → ${sign}`);
      }
    }
    if (signs.length > 0) {
      report({
        verdict: 'FAIL',
        check,
        message: `Portcullis's forward-auth endpoint answers the internet through ${origin.origin} (${signs.join('; ')}): anyone can ask it questions and read the headers it gives the apps`,
        fix: FIX.authApi,
      });
    } else {
      report({ verdict: 'PASS', check, message: `/api/auth/* is not reachable through ${origin.origin} (answers: ${[...new Set(statuses)].join(', ')})` });
    }
  }
}

/** Paths that mean one thing after normalisation and another before it, in both directions. */
function ambiguousTargets(url: URL, publicPath: string | undefined, marker: string): string[] {
  const filler = `portcullis-doctor-${marker}`;
  const protectedRest = url.pathname.slice(1);
  const protectedFirst = protectedRest.split('/')[0] || filler;
  const publicRest = publicPath === undefined ? `${filler}/` : publicPath.replace(/^\/+/, '');
  const publicFirst = publicRest.split('/')[0] || filler;
  const dots = ['..;/', '%2e%2e/', '..%2f', '..%5c'];
  const targets: string[] = [];
  for (const d of dots) targets.push(`/${protectedFirst}/${d}${publicRest}`);
  for (const d of dots) targets.push(`/${publicFirst}/${d}${protectedRest}`);
  return [...new Set(targets)];
}

async function ambiguousPaths(options: DiagnoseOptions, send: ProbeTransport, report: Report): Promise<void> {
  const { url, marker } = options;
  const bad: string[] = [];
  const odd: string[] = [];
  const seen: string[] = [];
  for (const target of ambiguousTargets(url, options.publicPath, marker)) {
    const answer = await send(probe(url, 'GET', target, browserHeaders(url.host)));
    seen.push(answer.kind === 'answer' ? String(answer.status) : answer.kind);
    if (served(answer)) bad.push(`${target} → ${describe(answer)}`);
    // A refusal may be a 400 from the proxy or Portcullis, or a 500 from nginx, which turns any
    // auth_request answer but 2xx/401/403 into one. A 404 or a redirect elsewhere may come from the app.
    else if (answer.kind === 'answer' && loginRedirect(answer, url) === null && !(answer.status >= 400 && answer.status !== 404)) {
      odd.push(`${target} → ${describe(answer)}`);
    }
  }
  if (bad.length > 0) {
    report({
      verdict: 'FAIL',
      check: 'ambiguous-paths',
      message: `paths that normalise to another path are served without a login: ${bad.join('; ')}`,
      fix: FIX.ambiguous,
    });
  } else if (odd.length > 0) {
    report({
      verdict: 'WARN',
      check: 'ambiguous-paths',
      message: `paths that normalise to another path got neither a refusal nor the login page: ${odd.join('; ')}`,
      fix: FIX.ambiguous,
    });
  } else {
    report({
      verdict: 'PASS',
      check: 'ambiguous-paths',
      message: `paths with ..;/ %2e%2e ..%2f ..%5c are refused or sent to the login page (answers: ${seen.join(', ')})`,
    });
  }
}

async function unknownHosts(options: DiagnoseOptions, send: ProbeTransport, report: Report, login: LoginRedirect): Promise<void> {
  const { url, marker } = options;
  const target = `${url.pathname}${url.search}`;
  const unknown = `portcullis-doctor-${marker}.invalid`;
  const protectedHost = url.hostname.toLowerCase();

  // 1. The same address and port, a Host no site serves.
  const byHost = await send(probe(url, 'GET', target, browserHeaders(unknown)));
  report(refusal('unknown-host', `a request for Host: ${unknown} on ${url.host}'s address`, byHost, url, protectedHost));

  // 2. Absolute form naming an unknown host: nginx and Go route by the request line, whatever Host says.
  const absoluteUnknown = await send(probe(url, 'GET', `${url.protocol}//${unknown}${target}`, browserHeaders(url.host)));
  report(
    refusal('absolute-form-unknown', `GET ${url.protocol}//${unknown}${target} (absolute form) with Host: ${url.host}`, absoluteUnknown, url, protectedHost),
  );

  // 3. Absolute form naming this site with another Host: the decision must be on the host that routes.
  const absolute = await send(probe(url, 'GET', url.href, browserHeaders(unknown)));
  const where = `GET ${url.href} (absolute form) with Host: ${unknown}`;
  const seen = loginRedirect(absolute, url);
  if (served(absolute)) {
    report({ verdict: 'FAIL', check: 'absolute-form', message: `${where} is served (${describe(absolute)}) without a login`, fix: FIX.host });
  } else if (seen === null) {
    report({ verdict: 'PASS', check: 'absolute-form', message: `${where} is refused (${describe(absolute)})` });
  } else if (hostnameOf(seen.decided) === protectedHost || (seen.decided === null && login.decided === null)) {
    report({ verdict: 'PASS', check: 'absolute-form', message: `${where} is decided for ${protectedHost}, the host it is routed to` });
  } else {
    report({
      verdict: 'FAIL',
      check: 'absolute-form',
      message: `${where} is routed to ${protectedHost}'s site but Portcullis decided on ${seen.decided ?? OUTSIDE}: a user refused on one host reaches it through another Host header`,
      fix: FIX.host,
    });
  }
}

function refusal(check: string, what: string, answer: ProbeAnswer, url: URL, protectedHost: string): Finding {
  if (answer.kind === 'closed') return { verdict: 'PASS', check, message: `${what} is refused (${describe(answer)})` };
  if (answer.kind === 'unreachable') return { verdict: 'SKIP', check, message: `${what}: ${answer.reason}` };
  const seen = loginRedirect(answer, url);
  if (seen !== null) {
    const decidedOn = hostnameOf(seen.decided);
    const on = decidedOn === null ? '' : decidedOn === protectedHost ? ` (decided for ${protectedHost})` : ` (decided for ${decidedOn})`;
    return {
      verdict: 'FAIL',
      check,
      message: `${what} reaches the protected site${on}: with no default server the first site answers every host, and the decision and the routing can disagree`,
      fix: FIX.defaultServer,
    };
  }
  if (served(answer)) {
    if (answer.body.length === 0)
      return { verdict: 'WARN', check, message: `${what} gets an empty ${answer.status}: nothing is served, but a refusal is clearer`, fix: FIX.defaultServer };
    return { verdict: 'FAIL', check, message: `${what} is served (${describe(answer)})`, fix: FIX.defaultServer };
  }
  if (answer.status >= 500) return { verdict: 'WARN', check, message: `${what} gets ${describe(answer)}`, fix: FIX.defaultServer };
  return { verdict: 'PASS', check, message: `${what} is refused (${describe(answer)})` };
}

interface SetCookie {
  readonly name: string;
  readonly value: string;
  readonly attributes: ReadonlyMap<string, string>;
}

function parseSetCookie(header: string): SetCookie | null {
  const [pair, ...rest] = header.split(';');
  const eq = pair.indexOf('=');
  if (eq <= 0) return null;
  const attributes = new Map<string, string>();
  for (const part of rest) {
    const i = part.indexOf('=');
    const key = (i === -1 ? part : part.slice(0, i)).trim().toLowerCase();
    if (key !== '') attributes.set(key, i === -1 ? '' : part.slice(i + 1).trim());
  }
  return { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), attributes };
}

function domainMatches(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * True when a login on `loginHost` can open `appHost`: the same host, or the app within the
 * domain Portcullis scopes its cookie to for that login host (its host minus the first label,
 * never above the registrable domain of the public-suffix list: a login on `evil.co.uk` can
 * never open `bank.co.uk`, so the password is never sent there).
 */
function sharesCookieDomain(loginHost: string, appHost: string): boolean {
  if (loginHost === appHost) return true;
  return isWithinDomain(
    appHost,
    protectedDomainOf(loginHost, (host) => publicSuffixes.registrableDomain(host)),
  );
}

type Account = { readonly username: string; readonly password: string };

/**
 * True when the password may go to `loginOrigin`: the login page was named by whoever answered the
 * protected URL, so it goes there only when it is where Portcullis's login for this app must be,
 * and never in clear text.
 */
function mayReceivePassword(url: URL, loginOrigin: URL, account: Account, report: Report): boolean {
  if (url.protocol === 'https:' && loginOrigin.protocol !== 'https:') {
    report({
      verdict: 'FAIL',
      check: 'login',
      message: `the app is https but its login page ${loginOrigin.origin} is plain http: passwords cross the network in clear (the doctor does not send ${account.username}'s)`,
      fix: 'make APP_URL https and serve the login host over https',
    });
    return false;
  }
  if (!sharesCookieDomain(loginOrigin.hostname.toLowerCase(), url.hostname.toLowerCase())) {
    report({
      verdict: 'FAIL',
      check: 'login',
      message: `the login page is on ${loginOrigin.hostname}, whose session cookie could not reach ${url.hostname}: the doctor does not send ${account.username}'s password to another domain`,
      fix: FIX.domain,
    });
    return false;
  }
  return true;
}

/** Posts the account to the gateway's login API; the session cookie it set and the answer's body, or null (reported). */
async function postLogin(send: ProbeTransport, report: Report, loginOrigin: URL, account: Account): Promise<{ session: SetCookie; body: string } | null> {
  const answer = await send(
    probe(
      loginOrigin,
      'POST',
      '/api/login',
      [
        ['Host', loginOrigin.host],
        ['User-Agent', USER_AGENT],
        ['Accept', 'application/json'],
        ['Content-Type', 'application/json'],
        ['Origin', loginOrigin.origin],
      ],
      JSON.stringify({ email: account.username, password: account.password }),
    ),
  );
  if (answer.kind !== 'answer' || answer.status !== 200) {
    const why = answer.kind === 'answer' && answer.status === 401 ? 'the name or password was refused' : describe(answer);
    report({
      verdict: 'FAIL',
      check: 'login',
      message: `could not log in as ${account.username} at ${loginOrigin.origin}/api/login: ${why}`,
      fix: 'give an account of this gateway and its password (stdin or --password-file)',
    });
    return null;
  }
  const cookies = (answer.headers.get('set-cookie') ?? [])
    .map(parseSetCookie)
    .filter((c): c is SetCookie => c !== null && c.value !== '' && c.attributes.get('max-age') !== '0');
  const session = cookies.find((c) => c.name === 'portcullis-session') ?? cookies[0];
  if (session === undefined) {
    report({
      verdict: 'FAIL',
      check: 'login',
      message: 'the login succeeded but set no session cookie',
      fix: 'let the proxy pass Set-Cookie from Portcullis unchanged',
    });
    return null;
  }
  report({ verdict: 'PASS', check: 'login', message: `logged in as ${account.username} through ${loginOrigin.origin}/api/login` });
  return { session, body: answer.body };
}

/** Reports the session cookie's Secure, HttpOnly and SameSite attributes; true when it is Secure. */
function checkCookieAttributes(session: SetCookie, url: URL, loginOrigin: URL, report: Report): boolean {
  const httpsUsed = loginOrigin.protocol === 'https:' || url.protocol === 'https:';
  const secure = session.attributes.has('secure');
  if (secure) report({ verdict: 'PASS', check: 'cookie-secure', message: `${session.name} is Secure` });
  else if (httpsUsed)
    report({
      verdict: 'FAIL',
      check: 'cookie-secure',
      message: `${session.name} is set over https without Secure: the browser also sends it over plain http, where anyone on the path can read it`,
      fix: FIX.secure,
    });
  else
    report({
      verdict: 'WARN',
      check: 'cookie-secure',
      message: `the login is plain http, so ${session.name} cannot be Secure: anyone on the path can read it`,
      fix: FIX.secure,
    });

  if (session.attributes.has('httponly')) report({ verdict: 'PASS', check: 'cookie-httponly', message: `${session.name} is HttpOnly` });
  else
    report({
      verdict: 'FAIL',
      check: 'cookie-httponly',
      message: `${session.name} is not HttpOnly: scripts on any page of the domain can steal the session`,
      fix: FIX.httpOnly,
    });

  const sameSite = (session.attributes.get('samesite') ?? '').toLowerCase();
  if (sameSite === 'lax' || sameSite === 'strict')
    report({ verdict: 'PASS', check: 'cookie-samesite', message: `${session.name} is SameSite=${session.attributes.get('samesite')}` });
  else
    report({
      verdict: 'WARN',
      check: 'cookie-samesite',
      message: sameSite === '' ? `${session.name} has no SameSite attribute` : `${session.name} is SameSite=None: it goes with cross-site requests`,
      fix: FIX.sameSite,
    });
  return secure;
}

/** Reports how far the session cookie reaches; true when a browser sends it to the protected app. */
function checkCookieDomain(session: SetCookie, url: URL, loginOrigin: URL, report: Report): boolean {
  const domainAttr = (session.attributes.get('domain') ?? '').replace(/^\./, '').toLowerCase();
  const cookieDomain = domainAttr === '' ? loginOrigin.hostname.toLowerCase() : domainAttr;
  const protectedHost = url.hostname.toLowerCase();
  const scope = domainAttr === '' ? `host-only on ${cookieDomain}` : `Domain=${cookieDomain}`;
  const reachesApp = domainAttr === '' ? cookieDomain === protectedHost : domainMatches(protectedHost, cookieDomain);
  if (!reachesApp) {
    report({
      verdict: 'FAIL',
      check: 'cookie-domain',
      message: `${session.name} is ${scope}: the browser never sends it to ${protectedHost}, so every visit goes back to the login page`,
      fix: FIX.domain,
    });
    return false;
  }
  if (!cookieDomain.includes('.'))
    report({
      verdict: 'WARN',
      check: 'cookie-domain',
      message: `${session.name} is ${scope}: every host under ${cookieDomain} receives the session`,
      fix: FIX.domain,
    });
  else report({ verdict: 'PASS', check: 'cookie-domain', message: `${session.name} is ${scope}, which covers ${protectedHost}` });
  return true;
}

/** Logs in through the gateway's own API, checks the cookie it sets, and returns `name=value` when a browser would send it to the app. */
async function logIn(options: DiagnoseOptions, send: ProbeTransport, report: Report, loginOrigin: URL): Promise<string | null> {
  const { url } = options;
  const account = options.login as Account;
  if (!mayReceivePassword(url, loginOrigin, account, report)) return null;
  const loggedIn = await postLogin(send, report, loginOrigin, account);
  if (loggedIn === null) return null;
  const { session } = loggedIn;
  const secure = checkCookieAttributes(session, url, loginOrigin, report);
  if (!checkCookieDomain(session, url, loginOrigin, report)) return null;

  if (secure && url.protocol !== 'https:') {
    report({
      verdict: 'SKIP',
      check: 'session',
      message: `${url.origin} is plain http, where a browser does not send a Secure cookie: the checks behind the login are skipped`,
    });
    return null;
  }
  let totpPending = false;
  try {
    totpPending = (JSON.parse(loggedIn.body) as { totpPending?: unknown }).totpPending === 'true';
  } catch {
    // A body that is not JSON says nothing about TOTP; the visit below shows whether the session works.
  }
  if (totpPending) {
    report({ verdict: 'SKIP', check: 'session', message: `${account.username} has TOTP: the checks behind the login need an account without it` });
    return null;
  }
  return `${session.name}=${session.value}`;
}

async function spoofedUpstreamHeaders(options: DiagnoseOptions, send: ProbeTransport, report: Report, cookie: string): Promise<void> {
  const { url, marker } = options;
  const target = `${url.pathname}${url.search}`;
  const withCookie = (extra: Array<[string, string]>): Array<[string, string]> => browserHeaders(url.host, [['Cookie', cookie], ...extra]);
  const base = await send(probe(url, 'GET', target, withCookie([])));
  if (!served(base)) {
    const refused = base.kind === 'answer' && (base.status === 403 || headerOf(base, 'location')?.includes('/unauthorized') === true);
    report(
      refused
        ? {
            verdict: 'SKIP',
            check: 'session',
            message: `the account is refused on ${url.href} (${describe(base)}): the checks behind the login need an account the rules let in`,
          }
        : {
            verdict: 'FAIL',
            check: 'session',
            message: `the session does not open ${url.href} (${describe(base)})`,
            fix: "check that the proxy passes the Cookie header to Portcullis's forward-auth endpoint",
          },
    );
    return;
  }
  report({ verdict: 'PASS', check: 'session', message: `the session opens ${url.href} (${describe(base)})` });

  const value = `portcullis-doctor-${marker}`;
  const spoofs: Array<{ check: string; what: string; headers: Array<[string, string]>; fix: string }> = [
    {
      check: 'upstream-remote-headers',
      what: 'Remote-User, Remote-Name, Remote-Email and Remote-Groups',
      headers: [
        ['Remote-User', value],
        ['Remote-Name', value],
        ['Remote-Email', `${value}@invalid`],
        ['Remote-Groups', value],
      ],
      fix: FIX.remote,
    },
    {
      check: 'upstream-x-forwarded-host',
      what: 'X-Forwarded-Host',
      headers: [['X-Forwarded-Host', spoofHostFor(url.hostname, marker)]],
      fix: FIX.upstreamForwarded,
    },
    { check: 'upstream-x-forwarded-uri', what: 'X-Forwarded-Uri', headers: [['X-Forwarded-Uri', `/${value}`]], fix: FIX.upstreamForwarded },
    {
      check: 'upstream-x-original-url',
      what: 'X-Original-URL',
      headers: [['X-Original-URL', `${url.protocol}//${url.host}/${value}`]],
      fix: FIX.upstreamForwarded,
    },
  ];
  for (const spoof of spoofs) {
    const answer = await send(probe(url, 'GET', target, withCookie(spoof.headers)));
    const sentBy = `a client's ${spoof.what}`;
    if (answer.kind === 'answer' && contains(answer, marker)) {
      report({
        verdict: 'FAIL',
        check: spoof.check,
        message: `${sentBy} reach${spoof.what.includes(',') ? '' : 'es'} the app (its answer repeats the spoofed value)`,
        fix: spoof.fix,
      });
    } else if (!served(answer)) {
      report({
        verdict: 'FAIL',
        check: spoof.check,
        message: `${sentBy} changes a logged-in answer (${describe(answer)} instead of ${describe(base)}): it reaches the decision`,
        fix: spoof.fix,
      });
    } else {
      report({
        verdict: 'PASS',
        check: spoof.check,
        message: `${sentBy} ${spoof.what.includes(',') ? 'do' : 'does'} not reach the app (not in its answer, status unchanged)`,
      });
    }
  }
}

function contains(answer: ProbeAnswer & { kind: 'answer' }, marker: string): boolean {
  if (answer.body.includes(marker)) return true;
  for (const values of answer.headers.values()) if (values.some((v) => v.includes(marker))) return true;
  return false;
}

/** POSTs JSON to the login host with the session cookie, as the account page does. */
function accountRequest(loginOrigin: URL, cookie: string, target: string, body: unknown): ProbeRequest {
  return probe(
    loginOrigin,
    'POST',
    target,
    [
      ['Host', loginOrigin.host],
      ['User-Agent', USER_AGENT],
      ['Accept', 'application/json'],
      ['Content-Type', 'application/json'],
      ['Origin', loginOrigin.origin],
      ['Cookie', cookie],
    ],
    JSON.stringify(body),
  );
}

/**
 * Issue 32: an access token is the gateway's alone, like the person's password. Makes a token of
 * the account through the account API (revoked again at the end), presents it in each header the
 * gateway reads, and checks that the app is served and never sees the token.
 */
async function accessTokenReachesApp(options: DiagnoseOptions, send: ProbeTransport, report: Report, loginOrigin: URL, cookie: string): Promise<void> {
  const { url } = options;
  const created = await send(accountRequest(loginOrigin, cookie, '/api/account/tokens', { name: 'portcullis doctor', expiresInDays: 1 }));
  if (created.kind !== 'answer' || created.status !== 201) {
    const off = created.kind === 'answer' && created.status === 404;
    report({
      verdict: 'SKIP',
      check: 'upstream-access-token',
      message: off ? 'access tokens are off (TOKENS=false)' : `no access token could be made for the check (${describe(created)})`,
    });
    return;
  }
  const { token, id } = JSON.parse(created.body) as { token: string; id: string };
  try {
    const target = `${url.pathname}${url.search}`;
    for (const [name, value] of [
      ['Authorization', `Bearer ${token}`],
      ['Portcullis-Token', token],
    ] as const) {
      const answer = await send(
        probe(url, 'GET', target, [
          ['Host', url.host],
          ['User-Agent', USER_AGENT],
          ['Accept', 'application/json'],
          [name, value],
        ]),
      );
      if (answer.kind === 'answer' && served(answer) && !contains(answer, token)) {
        report({ verdict: 'PASS', check: 'upstream-access-token', message: `an access token in ${name} opens ${url.href} and does not reach the app` });
      } else if (answer.kind === 'answer' && contains(answer, token)) {
        report({
          verdict: 'FAIL',
          check: 'upstream-access-token',
          message: `an access token in ${name} reaches the app (its answer repeats the token)`,
          fix: "drop Portcullis-Token and 'Authorization: Bearer pct_…' before the app, as the shipped examples do (docs/tokens.md)",
        });
      } else {
        report({
          verdict: 'FAIL',
          check: 'upstream-access-token',
          message: `an access token in ${name} does not open ${url.href} (${describe(answer)})`,
          fix: "pass the client's Authorization and Portcullis-Token headers to Portcullis's forward-auth endpoint",
        });
      }
    }
  } finally {
    await send(accountRequest(loginOrigin, cookie, '/api/account/tokens/revoke', { id }));
  }
}
