import { FilterParser } from 'ldapts';
import { escapeFilterValue, fillFilter, filterTemplateProblem } from '../../../src/domain/ldap-filter';
import { groupName } from '../../../src/adapters/users/ldap-user-store';

describe('LDAP filter templates', () => {
  it('escapes the five characters RFC 4515 reserves', () => {
    expect(escapeFilterValue('a*b(c)d\\e\u0000f')).toBe('a\\2ab\\28c\\29d\\5ce\\00f');
  });

  it('leaves other characters, UTF-8 included, as they are', () => {
    expect(escapeFilterValue("jürgen.o'neil@example.com")).toBe("jürgen.o'neil@example.com");
  });

  it('turns an injection attempt into a single equality test on the literal text', () => {
    const filter = fillFilter('(uid=%s)', { s: '*)(uid=*' });
    expect(filter).toBe('(uid=\\2a\\29\\28uid=\\2a)');
    const parsed = FilterParser.parseString(filter) as unknown as { attribute: string; value: string };
    expect(parsed.constructor.name).toBe('EqualityFilter');
    expect(parsed.value).toBe('*)(uid=*');
  });

  it('fills every %s and %d in one pass, so a value cannot bring in a placeholder', () => {
    expect(fillFilter('(|(uid=%s)(mail=%s)(member=%d))', { s: '%d', d: 'cn=a\\,b' })).toBe('(|(uid=%d)(mail=%d)(member=cn=a\\5c,b))');
    expect(fillFilter('(cn=100%%)', { s: 'x' })).toBe('(cn=100%)');
  });

  it('checks a template for the placeholder, the parentheses and the syntax', () => {
    const parse = (filter: string): unknown => FilterParser.parseString(filter);
    expect(filterTemplateProblem('(&(objectClass=person)(uid=%s))', 's', parse)).toBeNull();
    expect(filterTemplateProblem('(uid=alice)', 's', parse)).toMatch(/must contain %s/);
    expect(filterTemplateProblem('uid=%s', 's', parse)).toMatch(/parenthesized/);
    expect(filterTemplateProblem('(&(uid=%s)', 's', parse)).toMatch(/not a valid LDAP filter/);
    expect(filterTemplateProblem('(member=%d)', 'sd', parse)).toBeNull();
  });

  it('names a group by the value of the first RDN of its DN', () => {
    expect(groupName('cn=admins,ou=groups,dc=example,dc=test')).toBe('admins');
    expect(groupName('cn=R\\26D\\2c Lab,ou=groups,dc=x')).toBe('R&D, Lab');
    expect(groupName('cn=a\\,b,dc=x')).toBe('a,b');
    expect(groupName('staff')).toBe('staff');
  });
});
