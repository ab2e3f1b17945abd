/**
 * What `/api/app` reports; global for all users. The login UI (ui/src) imports this type too, so
 * the file stays free of imports: it must type-check under the UI's compiler settings as well.
 */
export interface AppContext {
  readonly title: string;
  readonly genericName: string;
  readonly domain: string;
  readonly forgotPasswordMessage: string;
  readonly oauthAutoRedirect: string;
  readonly disableContinue: boolean;
  readonly configuredProviders: readonly string[];
}
