// Reads the root Dockerfile and .dockerignore the way Docker does, for the two places that check
// them without a Docker engine: test/unit/dockerfile.test.ts (the rules the image must keep) and
// scripts/docker-free-build.js (the same build steps, run in a temp directory).
const { readdirSync, readFileSync, lstatSync } = require('node:fs');
const { join } = require('node:path');

/**
 * The instructions of a Dockerfile: comments and blank lines dropped, `\` continuations joined.
 * Each is { keyword (upper case), args (the rest, one line), line (where it starts), stage (index of its FROM) }.
 */
function parseDockerfile(text) {
  const instructions = [];
  const lines = text.split(/\r?\n/);
  let stage = -1;
  for (let i = 0; i < lines.length; i += 1) {
    const start = i;
    let line = lines[i];
    if (/^\s*(#|$)/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      i += 1;
      // A comment line inside a continued instruction is skipped, as Docker does.
      if (/^\s*#/.test(lines[i])) continue;
      line = `${line.replace(/\\\s*$/, '')} ${lines[i].trim()}`;
    }
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (m === null) throw new Error(`Dockerfile line ${start + 1}: cannot read "${line}"`);
    const keyword = m[1].toUpperCase();
    if (keyword === 'FROM') stage += 1;
    instructions.push({ keyword, args: m[2].trim(), line: start + 1, stage });
  }
  return instructions;
}

/** `--flag=value` options at the start of an instruction's arguments, and the rest. */
function splitFlags(args) {
  const flags = {};
  let rest = args;
  for (;;) {
    const m = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(rest);
    if (m === null) return { flags, rest };
    flags[m[1]] = m[2] ?? 'true';
    rest = rest.slice(m[0].length);
  }
}

/** The stages: { name, image, instructions } in order; `image` with ARG defaults substituted. */
function stagesOf(instructions) {
  const args = new Map();
  const stages = [];
  for (const ins of instructions) {
    if (ins.keyword === 'ARG' && ins.stage === -1) {
      const [name, value] = ins.args.split('=');
      args.set(name, value ?? '');
    }
    if (ins.keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (m === null) throw new Error(`Dockerfile line ${ins.line}: cannot read FROM ${ins.args}`);
      const image = m[1].replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name) => args.get(name) ?? '');
      stages.push({ name: m[2] ?? String(stages.length), image, instructions: [] });
    } else if (ins.stage >= 0) {
      stages[ins.stage].instructions.push(ins);
    }
  }
  return stages;
}

/** One .dockerignore pattern as a RegExp over slash-separated context paths (Go filepath.Match plus `**`). */
function patternRegExp(pattern) {
  let re = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      // `**/` matches any number of directories, zero included; a trailing `**` anything.
      if (pattern[i + 2] === '/') {
        re += '(?:.*/)?';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** The rules of a .dockerignore file: [{ negated, re }] in order; the last one that matches decides. */
function parseDockerignore(text) {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const negated = l.startsWith('!');
      // Docker cleans each pattern: no leading or trailing slash, no "./".
      const clean = (negated ? l.slice(1) : l)
        .trim()
        .replace(/^(\.\/|\/)+/, '')
        .replace(/\/+$/, '');
      return { negated, pattern: clean, re: patternRegExp(clean) };
    });
}

/** Whether Docker leaves `path` (relative, slash-separated) out of the context: a rule matches it or one of its parent directories. */
function ignored(rules, path) {
  const parts = path.split('/');
  let out = false;
  for (const rule of rules) {
    for (let n = 1; n <= parts.length; n += 1) {
      if (rule.re.test(parts.slice(0, n).join('/'))) {
        out = !rule.negated;
        break;
      }
    }
  }
  return out;
}

/** Every file of the build context rooted at `root`, by its .dockerignore: sorted relative paths. */
function contextFiles(root, rules) {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(join(root, dir))) {
      const rel = dir === '' ? name : `${dir}/${name}`;
      const stat = lstatSync(join(root, rel));
      if (stat.isDirectory()) {
        // A left-out directory is still entered when a later exception may let something inside it in.
        if (ignored(rules, rel) && !rules.some((r) => r.negated && r.pattern.startsWith(`${rel}/`))) continue;
        walk(rel);
      } else if (!ignored(rules, rel)) {
        files.push(rel);
      }
    }
  };
  walk('');
  return files.sort();
}

/** The root Dockerfile's stages and the root .dockerignore's rules. */
function readRepository(root) {
  return {
    stages: stagesOf(parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'))),
    ignore: parseDockerignore(readFileSync(join(root, '.dockerignore'), 'utf8')),
  };
}

module.exports = { parseDockerfile, splitFlags, stagesOf, parseDockerignore, ignored, contextFiles, readRepository };
