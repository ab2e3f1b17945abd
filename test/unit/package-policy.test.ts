import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const pkg = JSON.parse(read('package.json')) as { engines: { node: string }; allowScripts: Record<string, boolean> };
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { hasInstallScript?: boolean }> };

describe('what the package promises, said the same way everywhere (issue 30)', () => {
  it('states one Node policy: engines, the README and the operations guide name the same range', () => {
    expect(pkg.engines.node).toMatch(/^\^\d/);
    expect(read('README.md')).toContain(`\`${pkg.engines.node}\``);
    expect(read('docs/operations.md')).toContain(`\`${pkg.engines.node}\``);
  });

  it("approves every dependency's install script, and nothing that has none", () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
      .sort();
    expect(withScripts.length).toBeGreaterThan(0);
    expect(Object.keys(pkg.allowScripts).sort()).toEqual(withScripts);
    for (const name of withScripts) expect(read('README.md')).toContain(`\`${name}\``);
  });
});
