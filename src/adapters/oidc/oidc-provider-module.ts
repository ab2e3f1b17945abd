import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';

/*
 * The part of panva's oidc-provider (v9, ESM only, no bundled types) that Portcullis uses, typed
 * here once. Composition loads the module (`require` of ESM, Node ≥ 20.19) and hands it over, so
 * nothing else imports the library.
 */

/** The provider's Koa context, as far as our hooks read it. */
export interface ProviderContext extends Koa.Context {
  readonly oidc: {
    readonly route?: string;
    readonly client?: { readonly clientId: string; readonly clientName?: string };
    readonly params?: Record<string, unknown>;
    /** The provider's session: who, and since the gateway said so, when and how they proved it (`auth_time`, `amr`, `acr`). */
    readonly session?: { readonly accountId?: string; loginTs?: number; amr?: readonly string[]; acr?: string };
    /** What the request made or used, by model name (an `AuthorizationCode` once one is issued). */
    readonly entities?: Record<string, unknown>;
  };
}

export interface ProviderInteraction {
  readonly uid: string;
  readonly prompt: { readonly name: string; readonly reasons: readonly string[] };
  readonly params: Record<string, unknown>;
  readonly session?: { readonly accountId?: string };
  readonly grantId?: string;
  /** What was submitted so far; saved with the interaction by {@link ProviderInteraction.persist}. */
  result?: Record<string, unknown>;
  /** Saves the interaction as it is now, for its remaining lifetime. */
  persist(): Promise<unknown>;
}

export interface ProviderGrant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: readonly string[]): void;
  save(): Promise<string>;
}

export interface ProviderClient {
  readonly clientId: string;
  readonly clientAuthMethod: string;
  /** Whether ID tokens carry `sid` (the library: only for clients with a back-channel logout URI requiring it). */
  includeSid(): boolean;
  /** The library's own delivery of a logout token (RP-initiated logout only, inline and not retried). */
  backchannelLogout(sub: string, sid: string): Promise<void>;
  /** Whether `actual` is the client's secret (called for client_secret_basic and client_secret_post alike). */
  compareClientSecret(actual: string): boolean | Promise<boolean>;
}

export interface ProviderCheck {
  readonly reason: string;
}

export interface OidcProviderInstance {
  proxy: boolean;
  readonly app: Koa;
  callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  use(middleware: (ctx: ProviderContext, next: () => Promise<void>) => Promise<void>): void;
  on(event: string, listener: (...args: unknown[]) => void): void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<ProviderInteraction>;
  interactionResult(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<string>;
  /** The class of the registered clients (one per provider instance). */
  readonly Client: {
    readonly prototype: ProviderClient;
  };
  readonly Grant: {
    new (init: { accountId: string; clientId: string }): ProviderGrant;
    find(id: string): Promise<ProviderGrant | undefined>;
  };
}

export interface OidcProviderModule {
  readonly Provider: (new (issuer: string, configuration: Record<string, unknown>) => OidcProviderInstance) & {
    /** The request being handled (the library keeps it per asynchronous context), or undefined outside one. */
    readonly ctx: Koa.Context | undefined;
  };
  /** The provider's errors, rendered as OAuth error answers (status, `error`, `error_description`). */
  readonly errors: {
    readonly InvalidGrant: new (description: string) => Error;
    readonly TemporarilyUnavailable: new (description: string) => Error;
  };
  readonly interactionPolicy: {
    readonly Check: {
      new (reason: string, description: string, error: string, check: (ctx: ProviderContext) => boolean | Promise<boolean>): ProviderCheck;
      readonly REQUEST_PROMPT: boolean;
      readonly NO_NEED_TO_PROMPT: boolean;
    };
    base(): ProviderPolicy;
  };
}

export interface ProviderPolicy {
  get(name: string): { readonly checks: { add(check: ProviderCheck, index?: number): void } } | undefined;
}
