/**
 * The password hashes a local account may hold (`USERS`, a users file): bcrypt (`$2a$`, `$2b$`,
 * `$2y$`) and Argon2 (`$argon2id$`, `$argon2i$`, as Authelia writes them). Reading a hash checks
 * its form and bounds its cost, so that a file cannot make each login take seconds or allocate
 * gigabytes; nothing here computes a hash.
 */

export type BcryptHash = { readonly kind: 'bcrypt'; readonly cost: number };

export type Argon2Variant = 'argon2id' | 'argon2i';

export type Argon2Hash = {
  readonly kind: 'argon2';
  readonly variant: Argon2Variant;
  /** Memory per check, in KiB (`m=`). */
  readonly memoryKiB: number;
  /** Passes over that memory (`t=`). */
  readonly iterations: number;
  /** Lanes (`p=`). */
  readonly parallelism: number;
};

export type PasswordHashParameters = BcryptHash | Argon2Hash;

export type ReadPasswordHashResult = { readonly ok: true; readonly hash: PasswordHashParameters } | { readonly ok: false; readonly problem: string };

/**
 * The most an Argon2 hash in a users list may ask for. 256 MiB and sixteen passes each, and at
 * most 1 GiB of passes in all (64 MiB × 16, 256 MiB × 4): Authelia's default (64 MiB × 3) and its
 * low-memory profiles fit; its 2 GiB profile does not, since each concurrent login would hold 2 GiB.
 */
export const ARGON2_LIMITS = {
  maxMemoryKiB: 262_144,
  maxIterations: 16,
  maxParallelism: 16,
  maxMemoryPasses: 1_048_576,
  /** Salt and output, in bytes. */
  minSaltBytes: 8,
  maxSaltBytes: 64,
  minHashBytes: 16,
  maxHashBytes: 64,
} as const;

/** Authelia's default Argon2id parameters, which `portcullis user add --argon2id` writes too. */
export const AUTHELIA_ARGON2ID: Argon2Hash = { kind: 'argon2', variant: 'argon2id', memoryKiB: 65_536, iterations: 3, parallelism: 4 };

/** What the supported kinds are, as problems say it. */
export const SUPPORTED_HASHES = 'a bcrypt ($2a$, $2b$, $2y$) or Argon2 ($argon2id$, $argon2i$) hash';

const BCRYPT = /^\$2[aby]\$(\d{2})\$[./A-Za-z0-9]{53}$/;
const ARGON2 = /^\$(argon2id|argon2i)\$v=(\d+)\$([a-z]=\d{1,10}(?:,[a-z]=\d{1,10}){2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/** Hash kinds other tools write, named so that the problem says what the operator has. */
const OTHER_KINDS: readonly (readonly [RegExp, string])[] = [
  [/^\$argon2d\$/, 'an Argon2d'],
  [/^\$pbkdf2(-sha\d+)?\$/, 'a PBKDF2'],
  [/^\$scrypt\$|^\$7\$/, 'a scrypt'],
  [/^\$6\$/, 'a SHA-512 crypt'],
  [/^\$5\$/, 'a SHA-256 crypt'],
  [/^\$1\$|^\$apr1\$/, 'an MD5 crypt'],
  [/^\{SHA\}|^\{SSHA\}/, 'an LDAP SHA'],
];

/** Bytes a base64 text without padding (PHC's form) stands for, or null when its length cannot be one. */
function base64Bytes(text: string): number | null {
  return text.length % 4 === 1 ? null : Math.floor((text.length * 3) / 4);
}

function readArgon2(match: RegExpExecArray): ReadPasswordHashResult {
  const [, variant, version, paramText, salt, output] = match;
  if (version !== '19') return { ok: false, problem: `Argon2 hash of version ${version}: only version 19 (v=19, as Authelia writes) is supported` };
  const params = new Map<string, number>();
  for (const pair of paramText.split(',')) params.set(pair[0], Number(pair.slice(2)));
  const m = params.get('m');
  const t = params.get('t');
  const p = params.get('p');
  if (params.size !== 3 || m === undefined || t === undefined || p === undefined)
    return { ok: false, problem: 'Argon2 hash must give m=, t= and p= once each' };
  const L = ARGON2_LIMITS;
  if (p < 1 || p > L.maxParallelism) return { ok: false, problem: `Argon2 parallelism p=${p} is outside 1 to ${L.maxParallelism}` };
  if (m < 8 * p || m > L.maxMemoryKiB) return { ok: false, problem: `Argon2 memory m=${m} KiB is outside ${8 * p} to ${L.maxMemoryKiB} KiB (256 MiB)` };
  if (t < 1 || t > L.maxIterations) return { ok: false, problem: `Argon2 iterations t=${t} are outside 1 to ${L.maxIterations}` };
  if (m * t > L.maxMemoryPasses)
    return { ok: false, problem: `Argon2 cost m×t=${m * t} is over ${L.maxMemoryPasses} (e.g. 64 MiB with t=16, 256 MiB with t=4)` };
  const saltBytes = base64Bytes(salt);
  const outputBytes = base64Bytes(output);
  if (saltBytes === null || saltBytes < L.minSaltBytes || saltBytes > L.maxSaltBytes)
    return { ok: false, problem: `Argon2 salt must be ${L.minSaltBytes} to ${L.maxSaltBytes} bytes of base64` };
  if (outputBytes === null || outputBytes < L.minHashBytes || outputBytes > L.maxHashBytes)
    return { ok: false, problem: `Argon2 hash output must be ${L.minHashBytes} to ${L.maxHashBytes} bytes of base64` };
  return { ok: true, hash: { kind: 'argon2', variant: variant as Argon2Variant, memoryKiB: m, iterations: t, parallelism: p } };
}

/**
 * Reads a stored password hash: its kind and cost, or a problem that names the kind (never the
 * hash). Argon2's parameters may come in any order (`m=65536,t=3,p=4` or `m=65536,p=4,t=3`).
 */
export function readPasswordHash(hash: string): ReadPasswordHashResult {
  const bcrypt = BCRYPT.exec(hash);
  if (bcrypt !== null) return { ok: true, hash: { kind: 'bcrypt', cost: Number(bcrypt[1]) } };
  const argon2 = ARGON2.exec(hash);
  if (argon2 !== null) return readArgon2(argon2);
  for (const [pattern, name] of OTHER_KINDS)
    if (pattern.test(hash)) return { ok: false, problem: `${name} hash cannot be verified; it must be ${SUPPORTED_HASHES}` };
  if (/^\$argon2/.test(hash)) return { ok: false, problem: `malformed Argon2 hash; it must look like $argon2id$v=19$m=65536,t=3,p=4$salt$hash` };
  return { ok: false, problem: `password must be ${SUPPORTED_HASHES}` };
}

/**
 * Rough work of one check, in bcrypt cost-10 checks, to compare kinds: bcrypt doubles per cost
 * step; Argon2 grows with memory × passes. Measured on the benchmark machine (docs/benchmark.md),
 * Authelia's default Argon2id (64 MiB × 3 passes) took about 2.7 bcrypt cost-10 checks.
 */
export function estimatedWork(hash: PasswordHashParameters): number {
  if (hash.kind === 'bcrypt') return 2 ** (hash.cost - 10);
  return (hash.memoryKiB * hash.iterations) / ARGON2_MEMORY_PASSES_PER_BCRYPT10;
}

/** Argon2 KiB-passes that cost about one bcrypt cost-10 check (196608 / 2.7). */
export const ARGON2_MEMORY_PASSES_PER_BCRYPT10 = 72_818;

function sameParameters(a: PasswordHashParameters, b: PasswordHashParameters): boolean {
  if (a.kind === 'bcrypt') return b.kind === 'bcrypt' && a.cost === b.cost;
  if (b.kind === 'bcrypt') return false;
  return a.variant === b.variant && a.memoryKiB === b.memoryKiB && a.iterations === b.iterations && a.parallelism === b.parallelism;
}

/**
 * What the decoy check for an unknown account is made of, so it costs what a known account's check
 * costs: within each kind, the parameters most hashes use (the costlier on a tie); between bcrypt
 * and Argon2, the kind whose check costs more, so that no account of the costlier kind answers
 * slower than an unknown name. Undefined without any hash.
 */
export function decoyParameters(hashes: readonly string[]): PasswordHashParameters | undefined {
  const counts: { params: PasswordHashParameters; n: number }[] = [];
  for (const hash of hashes) {
    const read = readPasswordHash(hash);
    if (!read.ok) continue; // a passkey-only or service account has none
    const known = counts.find((c) => sameParameters(c.params, read.hash));
    if (known) known.n += 1;
    else counts.push({ params: read.hash, n: 1 });
  }
  const typical = (kind: PasswordHashParameters['kind']): PasswordHashParameters | undefined => {
    let best: { params: PasswordHashParameters; n: number } | undefined;
    for (const c of counts) {
      if (c.params.kind !== kind) continue;
      if (best === undefined || c.n > best.n || (c.n === best.n && estimatedWork(c.params) > estimatedWork(best.params))) best = c;
    }
    return best?.params;
  };
  const bcrypt = typical('bcrypt');
  const argon2 = typical('argon2');
  if (bcrypt === undefined || argon2 === undefined) return bcrypt ?? argon2;
  return estimatedWork(argon2) >= estimatedWork(bcrypt) ? argon2 : bcrypt;
}
