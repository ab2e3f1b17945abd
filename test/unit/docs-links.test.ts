import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Every relative link and `#anchor` in README.md, CHANGELOG.md, CONTRIBUTING.md and docs/**\/*.md
 * must lead somewhere: the docs are split into one file per topic, and a moved section or a renamed
 * ADR must not leave a dead link. The index, docs/README.md, names every page of docs/.
 */

const ROOT = join(__dirname, '..', '..');

/** GitHub's heading anchor: lower case, punctuation dropped (but `-` and `_`), spaces as hyphens. */
export function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The lines outside fenced code blocks (those inside read as empty), where links and headings count. */
function prose(markdown: string): string[] {
  const lines: string[] = [];
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) {
      fence = !fence;
      lines.push('');
      continue;
    }
    lines.push(fence ? '' : line);
  }
  return lines;
}

/** The anchors a Markdown file offers: one per heading (GitHub numbers repeats), plus explicit ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading !== null) {
      const base = slugOf(heading[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  }
  return anchors;
}

/** Link targets written in a Markdown file: `[text](target)`, `![alt](target)`, `src=`/`href=` attributes. */
export function linksOf(markdown: string): string[] {
  const links: string[] = [];
  for (const line of prose(markdown)) {
    const text = line.replace(/`[^`]*`/g, '');
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push(m[1]);
    for (const m of text.matchAll(/\s(?:src|href)="([^"]+)"/g)) links.push(m[1]);
  }
  return links;
}

/** The links of one file that lead nowhere, as `file: target (reason)`. */
export function brokenLinks(file: string, read: (path: string) => string | null): string[] {
  const text = read(file);
  if (text === null) return [`${file}: file missing`];
  const problems: string[] = [];
  for (const link of linksOf(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto: and the like
    const hash = link.indexOf('#');
    const pathPart = hash === -1 ? link : link.slice(0, hash);
    const anchor = hash === -1 ? null : decodeURIComponent(link.slice(hash + 1));
    const target = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
    const targetText = read(target);
    if (targetText === null) {
      problems.push(`${relative(ROOT, file)}: ${link} (no such file)`);
      continue;
    }
    if (anchor !== null && target.endsWith('.md') && !anchorsOf(targetText).has(anchor)) {
      problems.push(`${relative(ROOT, file)}: ${link} (no such anchor)`);
    }
  }
  return problems;
}

function readFromDisk(path: string): string | null {
  if (!existsSync(path)) return null;
  // A directory is a valid target (GitHub shows its listing); it has no anchors.
  return statSync(path).isDirectory() ? '' : readFileSync(path, 'utf8');
}

function markdownFiles(): string[] {
  const files = ['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md'].map((f) => join(ROOT, f));
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) files.push(path);
    }
  };
  walk(join(ROOT, 'docs'));
  return files;
}

describe('links in the documentation', () => {
  it('resolve: every relative link names an existing file and every #anchor an existing heading', () => {
    const files = markdownFiles();
    expect(files.length).toBeGreaterThan(5);
    const problems = files.flatMap((f) => brokenLinks(f, readFromDisk));
    expect(problems).toEqual([]);
  });

  it('are actually found: the README links to the topic documents and the index, the changelog is read', () => {
    const links = linksOf(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(links).toEqual(expect.arrayContaining(['docs/README.md', 'docs/configuration.md', 'docs/proxies.md', 'docs/adr/', 'CHANGELOG.md']));
    expect(markdownFiles()).toEqual(expect.arrayContaining([join(ROOT, 'CHANGELOG.md'), join(ROOT, 'docs', 'README.md')]));
  });

  it('the index, docs/README.md, has one line for every page of docs/, and only one', () => {
    const index = readFileSync(join(ROOT, 'docs', 'README.md'), 'utf8');
    const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect(pages.length).toBeGreaterThan(10);
    const lines = (page: string): number => index.split('\n').filter((l) => l.startsWith('- ') && linksOf(l).includes(page)).length;
    expect(pages.filter((p) => lines(p) !== 1)).toEqual([]);
  });

  describe('the checker', () => {
    const docs: Record<string, string> = {
      '/d/a.md':
        '# Top\n\n## Client address, `TRUSTED_PROXIES` and the lock\n\n## Top\n\n[ok](b.md#the-part) [self](#top-1) [code](#client-address-trusted_proxies-and-the-lock)\n',
      '/d/b.md':
        '# B\n\n## The part\n\n[bad file](c.md) [bad anchor](a.md#nowhere) [web](https://example.com/x#y) ![img](pic.png)\n\n```\n[in code](missing.md)\n```\n',
      '/d/pic.png': '',
    };
    const read = (p: string): string | null => docs[p] ?? null;

    it('accepts links to existing files and headings, repeated headings numbered as GitHub does', () => {
      expect(brokenLinks('/d/a.md', read)).toEqual([]);
    });

    it('reports a missing file and a missing anchor, and ignores web links and code blocks', () => {
      expect(brokenLinks('/d/b.md', read).map((p) => p.replace(/^.*?: /, ''))).toEqual(['c.md (no such file)', 'a.md#nowhere (no such anchor)']);
    });
  });
});
