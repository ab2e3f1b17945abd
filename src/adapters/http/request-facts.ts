import type { IncomingMessage } from 'node:http';
import type { PresentedCredentials } from '../../domain/credentials';
import type { ForwardedHeaders, ProxyKind } from '../../domain/forwarded-request';
import { FLOW_ID_PATTERN, MAX_LIVE_OAUTH_FLOWS } from '../../domain/oauth-flow';
import type { HeldOAuthFlow } from '../../application/oauth/start-oauth';
import { isBasicAuthorization, presentedBasicCredentials } from './basic-authorization';
import { presentedAccessToken } from './access-token-header';
import { JwtBearers } from './jwt-bearer';
import type { ClientAddressResolver } from './client-address';
import { OAUTH_FLOW_COOKIE_PREFIX, readCookie, readCookiesWithPrefix, readSoleCookie, SESSION_COOKIE } from './cookies';
import { header } from './header-access';
import { prefersMinimalReturn } from './prefer';

/**
 * Everything the use cases need to know about a request, read in one place: the rest of the HTTP
 * adapter hands these on and never reads a header itself. Credentials arrive decoded (Basic ones when first read, see presentedBasicCredentials); a request
 * whose `Authorization` is not well-formed Basic presents none.
 */
export interface RequestFacts {
  readonly requestId: string;
  /** The client's address (see ClientAddressResolver), or `unknown` when it cannot be read. */
  readonly ip: string;
  /**
   * API mode (never a redirect, never HTML) when the client sends HTTP Basic (even a malformed
   * one) or does not accept HTML; otherwise browser mode.
   */
  readonly apiMode: boolean;
  /** The session cookie's value, if any. */
  readonly sessionToken: string | undefined;
  readonly credentials: PresentedCredentials | undefined;
}

/** A forward-auth request: the facts, the proxy that asks and the original request's headers as it sent them. */
export interface ForwardAuthFacts extends RequestFacts {
  readonly forwarded: ForwardedHeaders;
  /** More than one session cookie came (see readSoleCookie): the request is refused before any decision. */
  readonly severalSessionCookies: boolean;
  /** The access token presented (see presentedAccessToken), if any. */
  readonly token: string | undefined;
  /** The workload JWT of a configured issuer presented (see JwtBearers), if any and no access token came. */
  readonly jwt: string | undefined;
}

const NO_ISSUERS = new JwtBearers(new Set());

const HTML = /text\/html/i;

function isApiMode(authorization: string | undefined, accept: string | undefined): boolean {
  if (isBasicAuthorization(authorization)) return true;
  return accept === undefined || !HTML.test(accept);
}

export function clientAddressOf(req: IncomingMessage, resolver: ClientAddressResolver): string {
  return resolver.resolve(req.socket.remoteAddress, req.headers['x-forwarded-for']) ?? 'unknown';
}

/** Reads a request into facts. */
export function readRequestFacts(req: IncomingMessage, requestId: string, resolver: ClientAddressResolver): RequestFacts {
  const headers = req.headers;
  const authorization = header(headers, 'authorization');
  return {
    requestId,
    ip: clientAddressOf(req, resolver),
    apiMode: isApiMode(authorization, headers.accept),
    sessionToken: readCookie(header(headers, 'cookie'), SESSION_COOKIE),
    credentials: presentedBasicCredentials(authorization) ?? undefined,
  };
}

/**
 * Reads a forward-auth request into facts. Every forwarded header is handed over as Node joined it
 * (repeats become "a, b"); the domain reads only the ones this proxy sets and refuses a joined
 * value instead of picking one.
 */
export function readForwardAuthFacts(
  req: IncomingMessage,
  proxy: ProxyKind,
  requestId: string,
  resolver: ClientAddressResolver,
  /** The configured JWT issuers (issue 32): a Bearer JWT naming one of them is checked. */
  jwtBearers: JwtBearers = NO_ISSUERS,
): ForwardAuthFacts {
  const headers = req.headers;
  const authorization = header(headers, 'authorization');
  const sessionToken = readSoleCookie(header(headers, 'cookie'), SESSION_COOKIE);
  const token = presentedAccessToken(headers, authorization);
  const jwt = token === undefined ? jwtBearers.presented(authorization) : undefined;
  return {
    requestId,
    ip: clientAddressOf(req, resolver),
    // A machine presenting a token is answered in API mode: never a redirect to a login page.
    apiMode: token !== undefined || jwt !== undefined || isApiMode(authorization, headers.accept),
    token,
    jwt,
    sessionToken: sessionToken ?? undefined,
    severalSessionCookies: sessionToken === null,
    credentials: authorization === undefined ? undefined : (presentedBasicCredentials(authorization) ?? undefined),
    forwarded: {
      proxy,
      proto: header(headers, 'x-forwarded-proto'),
      host: header(headers, 'x-forwarded-host'),
      uri: header(headers, 'x-forwarded-uri'),
      method: header(headers, 'x-forwarded-method'),
      originalUrl: header(headers, 'x-original-url'),
      originalMethod: header(headers, 'x-original-method'),
    },
  };
}

/**
 * Whether the proxy asks for an allowed answer without a body (`Prefer: return=minimal`, see
 * prefer.ts). Not a fact for the use cases: only the shape of the answer depends on it.
 */
export function prefersMinimalAnswer(req: IncomingMessage): boolean {
  return prefersMinimalReturn(req.headers.prefer);
}

/** Reading a few more than the cap lets stale extras be cleared. */
const MAX_FLOW_COOKIES_READ = MAX_LIVE_OAUTH_FLOWS * 2;

/** The OAuth flows this browser holds: one `portcullis-oauth-<flow id>` cookie each, well-named ones only. */
export function readHeldOAuthFlows(req: IncomingMessage): HeldOAuthFlow[] {
  return readCookiesWithPrefix(header(req.headers, 'cookie'), OAUTH_FLOW_COOKIE_PREFIX, MAX_FLOW_COOKIES_READ)
    .filter((c) => FLOW_ID_PATTERN.test(c.suffix))
    .map((c) => ({ id: c.suffix, token: c.value }));
}
