import { appsOf, DEFAULT_MAX_DAYS, maxDaysOf, requestProblems } from '../../../ui/src/token-form';

/** The account page's token form (ui/src/token-form.ts): what it sends, and what it refuses before sending. */
describe('the token form', () => {
  test('reads the applications as names split on commas and spaces, each once; none is every application', () => {
    expect(appsOf(' grafana, wiki  grafana,,')).toEqual(['grafana', 'wiki']);
    expect(appsOf('  , ')).toBeUndefined();
  });

  test('refuses a missing or too long name, a malformed application and an expiry outside 1 to the longest', () => {
    expect(requestProblems('ci', ['grafana'], '30', 365)).toEqual([]);
    expect(requestProblems('ci', undefined, '', 365)).toEqual([]);
    expect(requestProblems('', undefined, '', 365)).toEqual(['name']);
    expect(requestProblems('x'.repeat(65), undefined, '', 365)).toEqual(['name']);
    expect(requestProblems('ci', ['no/slash'], '', 365)).toEqual(['apps']);
    expect(requestProblems('ci', undefined, '0', 365)).toEqual(['expiresInDays']);
    expect(requestProblems('ci', undefined, '366', 365)).toEqual(['expiresInDays']);
    expect(requestProblems('ci', undefined, '1.5', 365)).toEqual(['expiresInDays']);
  });

  test("takes the longest life from /api/app when it names one, else TOKEN_MAX_LIFETIME's default", () => {
    expect(maxDaysOf({ tokenMaxLifetimeDays: 30 })).toBe(30);
    expect(maxDaysOf({})).toBe(DEFAULT_MAX_DAYS);
    expect(maxDaysOf({ tokenMaxLifetimeDays: 'many' })).toBe(365);
  });
});
