import type { AccessRulesSource } from '../../../src/application/forward-auth/access-rules-source';
import { rulesForHost } from '../../../src/domain/access-evaluation';

/** One adapter under test, with ways to change what it reads. */
export interface RulesSourceHarness {
  readonly source: AccessRulesSource;
  /** Replaces the rules with `doc` (a plain rules document) and returns once the source has picked it up. */
  write(doc: unknown): Promise<void>;
  /** Replaces the rules with something invalid and returns once the source has refused it. */
  writeBroken(): Promise<void>;
  close(): Promise<void>;
}

const WIKI = { apps: { wiki: { domain: 'wiki.example.com', users: { allow: ['alice'] } } } };
const DOCS = { apps: { docs: { domain: 'docs.example.com' } } };

const appFor = (source: AccessRulesSource, host: string): string | null => rulesForHost(source.current(), host).name;

/** The behaviour every AccessRulesSource must have. `make(initial)` starts the adapter with a valid document. */
export function accessRulesSourceContract(name: string, make: (initial: unknown) => Promise<RulesSourceHarness>): void {
  describe(`AccessRulesSource contract: ${name}`, () => {
    let h: RulesSourceHarness;
    beforeEach(async () => {
      h = await make(WIKI);
    });
    afterEach(() => h.close());

    it('answers with the rules it started with, as version 1 without problems', () => {
      expect(appFor(h.source, 'wiki.example.com')).toBe('wiki');
      expect(h.source.version()).toBe(1);
      expect(h.source.problems()).toEqual([]);
    });

    it('puts a valid change in force and counts it', async () => {
      await h.write(DOCS);
      expect(appFor(h.source, 'docs.example.com')).toBe('docs');
      expect(appFor(h.source, 'wiki.example.com')).toBeNull();
      expect(h.source.version()).toBe(2);
    });

    it('keeps the last good rules when a change is broken, and reports why', async () => {
      const before = h.source.current();
      await h.writeBroken();
      expect(h.source.current()).toBe(before);
      expect(h.source.version()).toBe(1);
      expect(h.source.problems().length).toBeGreaterThan(0);
    });

    it('recovers with the next valid change and clears the problems', async () => {
      await h.writeBroken();
      await h.write(DOCS);
      expect(appFor(h.source, 'docs.example.com')).toBe('docs');
      expect(h.source.problems()).toEqual([]);
    });

    it('keeps answering after close, and close may be called twice', () => {
      h.source.close();
      h.source.close();
      expect(appFor(h.source, 'wiki.example.com')).toBe('wiki');
    });
  });
}
