/**
 * Compile-time checks of the wiring (not run: `typed-wiring.test.ts` type-checks this file, and
 * `tsc -p tsconfig.json` does too). Every `@ts-expect-error` below must be an error: if a mistake
 * it marks ever compiles again, the directive is unused and compiling this file fails.
 */
import type { Clock } from '../../src/application/ports/clock';
import type { HttpUseCases } from '../../src/adapters/http/app';
import { LoginUseCase } from '../../src/application/password/login';
import { LogoutUseCase } from '../../src/application/sessions/logout';
import { TypedContainer, type Wiring } from '../../src/composition/binding';
import { TOKENS, token } from '../../src/composition/tokens';
import { bindStore } from '../../src/composition/state';

declare const c: Wiring;
declare const container: TypedContainer;

export const right: Pick<HttpUseCases, 'login' | 'logout'> = { login: c.get(TOKENS.LoginUseCase), logout: c.get(TOKENS.LogoutUseCase) };

// @ts-expect-error a wrong token: the logout use case is no login use case
export const wrongToken: Pick<HttpUseCases, 'login'> = { login: c.get(TOKENS.LogoutUseCase) };

// @ts-expect-error a token is not a bare symbol, so an untyped key cannot stand in for one
c.get(Symbol.for('portcullis.Clock'));

// @ts-expect-error asking for a type the token does not resolve to
export const clock: Clock = c.get<typeof TOKENS.IdGenerator>(TOKENS.Clock);

export const typed = token<Clock>('TypedWiringExample');
export const sameType: Clock = c.get(typed);

const loginDeps = [TOKENS.CredentialCheck, TOKENS.SessionIssuer] as const;
// The binding of the real container, spelled out: it compiles.
container.bind(TOKENS.LoginUseCase, (...d) => new LoginUseCase(...d), [...loginDeps]);

// @ts-expect-error dependencies in another order than the constructor's parameters
container.bind(TOKENS.LoginUseCase, (...d) => new LoginUseCase(...d), [TOKENS.SessionIssuer, TOKENS.CredentialCheck]);

// @ts-expect-error a dependency token that does not match the factory's declared parameter
container.bind(TOKENS.Clock, (clock: Clock) => clock, [TOKENS.IdGenerator]);

// @ts-expect-error a factory that returns something else than the token's type
container.bind(TOKENS.LogoutUseCase, (...d) => new LoginUseCase(...d), [...loginDeps]);

// A store is bound from the bundle of the backend chosen for its order, checked like a binding.
bindStore(container, TOKENS.UsedTotpSteps, 'short-lived', (stores) => stores.usedTotpSteps());

// @ts-expect-error a store of another port
bindStore(container, TOKENS.HandoffCodes, 'short-lived', (stores) => stores.usedTotpSteps());

// A use case or service bound to its class: the dependency tokens are checked against its constructor.
container.bindClass(TOKENS.LogoutUseCase, LogoutUseCase, [TOKENS.RequestAuthenticator, TOKENS.RevokedSessions, TOKENS.AuditLog]);

// @ts-expect-error dependencies in the wrong order
container.bindClass(TOKENS.LogoutUseCase, LogoutUseCase, [TOKENS.RevokedSessions, TOKENS.RequestAuthenticator, TOKENS.AuditLog]);
