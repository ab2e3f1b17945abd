import { loadConfig } from '../../../src/composition/config';

const BASE = { APP_URL: 'https://auth.example.com', SECRET: 'x'.repeat(40), USERS: 'alice:$2b$04$abcdefghijklmnopqrstuu9bDhBNMCs2l5RVrXXqQ5aDwIr0zMVGa' };

function problems(env: Record<string, string>): string {
  const r = loadConfig({ env: { ...BASE, ...env } });
  return r.ok ? '' : r.problems.join('\n');
}

describe('configuration of the forward-auth listener', () => {
  it('keeps forward auth on the public listener when FORWARD_AUTH_PORT is unset', () => {
    const r = loadConfig({ env: BASE });
    expect(r.ok && [r.config.forwardAuthPort, r.config.forwardAuthAddress]).toEqual([null, '127.0.0.1']);
  });

  it('gives forward auth its own loopback listener when FORWARD_AUTH_PORT is set', () => {
    const r = loadConfig({ env: { ...BASE, FORWARD_AUTH_PORT: '3001' } });
    expect(r.ok && [r.config.forwardAuthPort, r.config.forwardAuthAddress]).toEqual([3001, '127.0.0.1']);
  });

  it('reads FORWARD_AUTH_ADDRESS and FORWARD_AUTH_PORT as flags too', () => {
    const r = loadConfig({ env: BASE, argv: ['--forward-auth-port', '9180', '--forward-auth-address=0.0.0.0'] });
    expect(r.ok && [r.config.forwardAuthPort, r.config.forwardAuthAddress]).toEqual([9180, '0.0.0.0']);
  });

  it('refuses a FORWARD_AUTH_PORT that is not a port', () => {
    expect(problems({ FORWARD_AUTH_PORT: 'internal' })).toMatch(/FORWARD_AUTH_PORT must be a whole number from 1 to 65535/);
    expect(problems({ FORWARD_AUTH_PORT: '0' })).toMatch(/FORWARD_AUTH_PORT must be a whole number from 1 to 65535/);
  });

  it('refuses a FORWARD_AUTH_PORT equal to PORT or METRICS_PORT', () => {
    expect(problems({ PORT: '3000', FORWARD_AUTH_PORT: '3000' })).toMatch(/FORWARD_AUTH_PORT must differ from PORT/);
    expect(problems({ METRICS_PORT: '9100', FORWARD_AUTH_PORT: '9100' })).toMatch(/FORWARD_AUTH_PORT must differ from METRICS_PORT/);
  });

  it('refuses FORWARD_AUTH_ADDRESS without FORWARD_AUTH_PORT, which would silently leave forward auth public', () => {
    expect(problems({ FORWARD_AUTH_ADDRESS: '10.0.0.5' })).toMatch(/FORWARD_AUTH_ADDRESS is set but FORWARD_AUTH_PORT is not/);
  });
});
