import { Container } from 'inversify';
import type { Token, TokenType } from './tokens';

/** The types a tuple of tokens resolves to, in order: `[Token<Clock>, Token<Logger>]` → `[Clock, Logger]`. */
export type Resolved<D extends readonly unknown[]> = { -readonly [K in keyof D]: D[K] extends Token<infer T> ? T : never };

/** What the rest of composition sees of the container: `get` returns the token's type. */
export interface Wiring {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  get<K extends Token<any>>(token: K): TokenType<K>;
}

/** Values that replace a binding, keyed by token (tests swap ports for fakes this way). */
export type Overrides = Readonly<Partial<Record<symbol, unknown>>>;

/**
 * Inversify behind a typed face. `bind(token, factory, deps)` checks, at compile time, that the
 * factory returns the token's type and that the dependency tokens' types match the factory's
 * parameters in order; a binding written `(...d) => new LoginUseCase(...d)` is thereby checked
 * against the constructor itself. Factories only construct: nothing connects, watches or starts a
 * timer while the container resolves (that is `gateway.start()`'s job).
 */
export class TypedContainer implements Wiring {
  private readonly container = new Container({ defaultScope: 'Singleton' });

  constructor(private readonly overrides: Overrides = {}) {}

  // `any` in the constraint only: the brand is invariant, so `Token<unknown>` would accept no token.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  bind<T, const D extends readonly Token<any>[] = []>(token: Token<T>, factory: (...deps: Resolved<D>) => NoInfer<T>, deps?: D): void {
    if (Object.prototype.hasOwnProperty.call(this.overrides, token)) this.container.bind(token).toConstantValue(this.overrides[token]);
    else this.container.bind(token).toResolvedValue(factory as (...args: unknown[]) => T, [...(deps ?? [])]);
  }

  /**
   * Binds `token` to `new Class(...deps)`: the dependency tokens' types are checked against the
   * constructor's parameters in order. The one way a use case or service is bound.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  bindClass<T, const D extends readonly Token<any>[]>(token: Token<T>, Class: new (...deps: Resolved<D>) => T, deps: D): void {
    this.bind(token, (...resolved: Resolved<D>) => new Class(...resolved), deps);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  get<K extends Token<any>>(token: K): TokenType<K> {
    return this.container.get<TokenType<K>>(token);
  }
}
