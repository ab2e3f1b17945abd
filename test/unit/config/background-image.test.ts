import { loadConfig } from '../../../src/composition/config';
import { contentSecurityPolicy } from '../../../src/adapters/http/ui';

const HASH = '$2b$04$abcdefghijklmnopqrstuuG7SUDEqQ3DYgpmGkv9SOcr9cfM0zpa2';
const VALID = { APP_URL: 'https://auth.example.test', SECRET: 'a-secret-that-is-long-enough-0123456789', USERS: `alice:${HASH}` };

function load(value: string): { ok: true; backgroundImage: string } | { ok: false; problems: readonly string[] } {
  const result = loadConfig({ env: { ...VALID, BACKGROUND_IMAGE: value } });
  return result.ok ? { ok: true, backgroundImage: result.config.backgroundImage } : { ok: false, problems: result.problems };
}

describe('BACKGROUND_IMAGE', () => {
  it('is none (an empty string, never absent) when unset', () => {
    const result = loadConfig({ env: VALID });
    expect(result.ok && result.config.backgroundImage).toBe('');
  });

  it.each([
    ['https://images.example.test/bg.jpg', 'https://images.example.test/bg.jpg'],
    ['http://localhost:8080/a/b.png?v=2', 'http://localhost:8080/a/b.png?v=2'],
    ['HTTPS://CDN.Example.test', 'https://cdn.example.test/'],
    ['/assets/background.webp', '/assets/background.webp'],
    ['/bg%20image.png', '/bg%20image.png'],
  ])('accepts %s', (value, expected) => {
    expect(load(value)).toEqual({ ok: true, backgroundImage: expected });
  });

  it.each([
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a data: URL', 'data:image/svg+xml;base64,PHN2Zz4='],
    ['a quote ending the CSS string', '/bg.png");background:url(https://evil.test/x'],
    ['a single quote', "/bg.png'"],
    ['brackets (expression(), url())', '/x)'],
    ['a backslash escape', '/bg\\22.png'],
    ['a space or new line', '/bg .png'],
    ['a protocol-relative URL (another origin)', '//evil.test/bg.png'],
    ['credentials in the URL', 'https://user:pw@images.example.test/bg.jpg'],
    ['a relative path', 'images/bg.png'],
    ['another scheme', 'ftp://images.example.test/bg.jpg'],
    ['a CSP directive smuggled after a space', 'https://images.example.test; script-src *'],
    ['angle brackets', '/</style><script>'],
  ])('refuses %s, naming the option but not echoing the value', (_what, value) => {
    const result = load(value);
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems).toEqual([expect.stringMatching(/^BACKGROUND_IMAGE must be an http\(s\) URL or a path on the login host/)]);
    expect(problems.join('\n')).not.toContain(value);
  });
});

describe("the pages' Content-Security-Policy", () => {
  it('allows images from this host and data: only, without a background image or with a path', () => {
    expect(contentSecurityPolicy('')).toContain("img-src 'self' data:;");
    expect(contentSecurityPolicy('/assets/bg.png')).toContain("img-src 'self' data:;");
  });

  it('adds the origin of an absolute background image to img-src, and nothing else of its URL', () => {
    const csp = contentSecurityPolicy('https://images.example.test:8443/a/bg.jpg?x=1#y');
    expect(csp).toContain("img-src 'self' data: https://images.example.test:8443;");
    expect(csp).not.toContain('/a/bg.jpg');
    expect(csp).toMatch(/script-src 'self'; style-src 'self';/);
  });
});
