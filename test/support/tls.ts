import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A self-signed certificate for `names` (the first is the subject), as an operator makes one for a
 * test with `openssl req -x509`: an EC key, valid two days, written to cert.pem and key.pem in `dir`.
 */
export function selfSignedCertificate(dir: string, names: readonly string[]): { certificate: string; key: string } {
  const certificate = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      certificate,
      '-days',
      '2',
      '-subj',
      `/CN=${names[0]}`,
      '-addext',
      `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`,
    ],
    { stdio: 'pipe' },
  );
  return { certificate, key };
}

function openssl(args: readonly string[]): void {
  execFileSync('openssl', args, { stdio: 'pipe' });
}

/** A self-signed CA in `dir`: `<name>.key` and `<name>.pem` (the certificate a client is told to trust); returns the latter. */
export function makeTestCa(dir: string, name: string, subject: string): string {
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    `/CN=${subject}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout',
    join(dir, `${name}.key`),
    '-out',
    join(dir, `${name}.pem`),
  ]);
  return join(dir, `${name}.pem`);
}

/**
 * A server certificate for 127.0.0.1 and localhost signed by the CA `<caName>` of {@link makeTestCa}
 * in `dir`, as a private CA would issue it: the key to `keyFile`, the certificate to `certFile`.
 */
export function issueServerCertificate(dir: string, caName: string, keyFile: string, certFile: string): void {
  const csr = join(dir, 'server.csr');
  const extensions = join(dir, 'server.ext');
  writeFileSync(extensions, 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', keyFile, '-out', csr]);
  openssl([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    join(dir, `${caName}.pem`),
    '-CAkey',
    join(dir, `${caName}.key`),
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    extensions,
    '-out',
    certFile,
  ]);
}
