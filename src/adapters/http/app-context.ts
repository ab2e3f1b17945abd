/**
 * What `/api/app` reports; global for all users. The login UI (ui/src) imports this type too, so
 * the file stays free of imports: it must type-check under the UI's compiler settings as well.
 */
/** Where the accounts' passwords live, for the default forgot-password text. */
export interface ForgotPasswordStores {
  readonly users: boolean;
  readonly usersFile: boolean;
  readonly ldap: boolean;
  /** The OAuth providers' names, as their buttons show them. */
  readonly providers: readonly string[];
}

export interface AppContext {
  readonly title: string;
  readonly genericName: string;
  readonly domain: string;
  readonly forgotPasswordMessage: string;
  /**
   * When FORGOT_PASSWORD_MESSAGE is unset: the facts the default text is made of, so the UI can say
   * it in the visitor's language (`forgotPasswordMessage` is that text in English). null when the
   * operator wrote the message: it is shown as written.
   */
  readonly forgotPasswordStores: ForgotPasswordStores | null;
  readonly oauthAutoRedirect: string;
  readonly disableContinue: boolean;
  /** PASSKEYS: whether the pages offer passkey sign-in and the account page lists passkeys. */
  readonly passkeys: boolean;
  /** TOKENS: whether the account page offers access tokens (issue 32). */
  readonly tokens: boolean;
  /** TOKEN_MAX_LIFETIME: the longest a token may live, in days (the account page's form bounds its expiry by it). */
  readonly tokenMaxLifetimeDays: number;
  /** REMEMBER_ME_EXPIRY is set (issue 33): the login page offers "Keep me signed in". */
  readonly rememberMe: boolean;
  readonly configuredProviders: readonly string[];
  /** Every login offered, with the name its button shows (tinyauth v4's `providers`); `username` has `oauth: false`. */
  readonly providers: readonly { readonly id: string; readonly name: string; readonly oauth: boolean }[];
  /**
   * BACKGROUND_IMAGE: an http(s) URL or a path on the login host, validated at start-up; '' for
   * none. Always a string: tinyauth's login UI refuses an app context without it.
   */
  readonly backgroundImage: string;
  /**
   * Only in the throwaway demo: where a proxy on this machine asks for forward auth (host:port),
   * so the account page can show a ready "protect your first app" snippet. null otherwise: a real
   * gateway tells nobody where its forward-auth listener is.
   */
  readonly demo: { readonly forwardAuth: string } | null;
  /** UI_LANGUAGE: the one language every page is shown in, whatever the browser prefers; '' lets the visitor's browser (and menu) choose. */
  readonly language: string;
  /** UI_LANGUAGES: the languages the menu offers (the first is the default for a browser wanting none of them); empty for every language the UI has. */
  readonly languages: readonly string[];
}
