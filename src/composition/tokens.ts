/** Inversify service identifiers, one per port, service and use case. */
export const TOKENS = {
  Config: Symbol.for('portcullis.Config'),
  Settings: Symbol.for('portcullis.GatewaySettings'),
  Logger: Symbol.for('portcullis.Logger'),
  AuditLog: Symbol.for('portcullis.AuditLog'),
  Clock: Symbol.for('portcullis.Clock'),
  IdGenerator: Symbol.for('portcullis.IdGenerator'),
  PasswordHasher: Symbol.for('portcullis.PasswordHasher'),
  TotpVerifier: Symbol.for('portcullis.TotpVerifier'),
  UsedTotpSteps: Symbol.for('portcullis.UsedTotpSteps'),
  LoginAttempts: Symbol.for('portcullis.LoginAttempts'),
  SessionSealer: Symbol.for('portcullis.SessionSealer'),
  RevokedSessions: Symbol.for('portcullis.RevokedSessions'),
  VerifiedCredentials: Symbol.for('portcullis.VerifiedCredentials'),
  UserStore: Symbol.for('portcullis.UserStore'),
  AccessPolicy: Symbol.for('portcullis.AccessPolicy'),
  OAuthProviders: Symbol.for('portcullis.OAuthProviders'),
  LoginGuard: Symbol.for('portcullis.LoginGuard'),
  RequestAuthenticator: Symbol.for('portcullis.RequestAuthenticator'),
  LoginUseCase: Symbol.for('portcullis.LoginUseCase'),
  VerifyTotpUseCase: Symbol.for('portcullis.VerifyTotpUseCase'),
  LogoutUseCase: Symbol.for('portcullis.LogoutUseCase'),
  GetCurrentUserUseCase: Symbol.for('portcullis.GetCurrentUserUseCase'),
  AuthorizeProxyRequestUseCase: Symbol.for('portcullis.AuthorizeProxyRequestUseCase'),
  HttpSettings: Symbol.for('portcullis.HttpSettings'),
} as const;

export type Token = (typeof TOKENS)[keyof typeof TOKENS];
