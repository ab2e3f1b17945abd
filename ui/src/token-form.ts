/**
 * The account page's token form without the page (issue 32): what it sends and what it refuses
 * before sending, as the gateway would (src/domain/access-token.ts). No DOM in this module, so unit
 * tests run it under Node.
 */

/** TOKEN_MAX_LIFETIME's default: the longest life the page offers unless `/api/app` names the operator's own. */
export const DEFAULT_MAX_DAYS = 365;
/** The longest token name and the most applications (src/domain/access-token.ts). */
export const MAX_NAME_LENGTH = 64;
const MAX_APPS = 32;
const APP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The longest life of a token in days: `/api/app`'s `tokenMaxLifetimeDays` where a gateway sends it, else the default. */
export function maxDaysOf(app: object): number {
  const days = (app as { tokenMaxLifetimeDays?: unknown }).tokenMaxLifetimeDays;
  return typeof days === 'number' && Number.isInteger(days) && days >= 1 ? days : DEFAULT_MAX_DAYS;
}

/** The applications field as the API takes it: names split on commas and spaces; undefined for none (every application). */
export function appsOf(text: string): string[] | undefined {
  const names = text
    .split(/[\s,]+/)
    .map((n) => n.trim())
    .filter((n) => n !== '');
  return names.length === 0 ? undefined : [...new Set(names)];
}

/** What is wrong with a token request before it is sent (the server checks it again): the fields, as the API names them. */
export function requestProblems(name: string, apps: readonly string[] | undefined, days: string, maxDays: number): string[] {
  const fields: string[] = [];
  if (name === '' || name.length > MAX_NAME_LENGTH || /\p{Cc}/u.test(name)) fields.push('name');
  if (apps !== undefined && (apps.length > MAX_APPS || !apps.every((a) => APP_NAME.test(a)))) fields.push('apps');
  if (days !== '' && !(/^\d+$/.test(days) && Number(days) >= 1 && Number(days) <= maxDays)) fields.push('expiresInDays');
  return fields;
}
