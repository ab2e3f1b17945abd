import { diagnose } from '../../../src/cli/doctor/diagnose';
import type { Finding } from '../../../src/cli/doctor/findings';
import type { ProbeAnswer, ProbeRequest, ProbeTransport } from '../../../src/cli/doctor/probe-transport';

function answer(status: number, headers: Record<string, string> = {}, body = ''): ProbeAnswer {
  return { kind: 'answer', status, headers: new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), [v]])), body };
}

/** An app on `appHost` whose anonymous visits are sent to `loginPage`; everything else is closed. */
function siteSendingLoginTo(appHost: string, loginPage: string, sent: ProbeRequest[]): ProbeTransport {
  return async (req) => {
    sent.push(req);
    if (req.hostname === appHost) return answer(302, { location: `${loginPage}?redirect_uri=${encodeURIComponent(`https://${appHost}/`)}` });
    return { kind: 'closed' };
  };
}

async function findingsFor(app: string, loginPage: string): Promise<{ findings: Finding[]; sent: ProbeRequest[] }> {
  const sent: ProbeRequest[] = [];
  const findings: Finding[] = [];
  await diagnose(
    { url: new URL(app), marker: 'feedc0de', login: { username: 'alice', password: 'pw' } },
    siteSendingLoginTo(new URL(app).hostname, loginPage, sent),
    (f) => findings.push(f),
  );
  return { findings, sent };
}

describe('doctor and the public-suffix list', () => {
  // A cookie for co.uk is refused by browsers: a login on evil.co.uk can never open bank.co.uk.
  it('never sends the password to a login page on another domain under the same public suffix (co.uk)', async () => {
    const { findings, sent } = await findingsFor('https://bank.co.uk/', 'https://evil.co.uk/login');
    expect(findings.find((f) => f.check === 'login')).toEqual(
      expect.objectContaining({ verdict: 'FAIL', message: expect.stringContaining("does not send alice's password to another domain") }),
    );
    expect(sent.filter((r) => r.method === 'POST' || (r.body ?? '').includes('pw'))).toEqual([]);
  });

  it('nor to another site of a private suffix (github.io)', async () => {
    const { sent } = await findingsFor('https://me.github.io/', 'https://attacker.github.io/login');
    expect(sent.filter((r) => r.method === 'POST')).toEqual([]);
  });
});
