'use strict';
// One autocannon run in its own process, so the load generator never shares an event loop with
// the orchestrator. Receives a job over IPC, answers with a summary, exits.
// A job: { url, connections, duration? | amount?, requests: [{method, path, headers, body}],
//          rotateCookies?: string[]  (requests marked `rotate` take the next session cookie from the list),
//          flood?: true              (random usernames and X-Forwarded-For on every request) }
// A 'stop' message ends a running job early (the flood runs until told to stop).
const autocannon = require('autocannon');
const { randomBytes } = require('node:crypto');

function buildRequests(job) {
  let next = 0;
  return job.requests.map((r) => {
    const request = { method: r.method, path: r.path, headers: r.headers, body: r.body };
    if (r.rotate === true && job.rotateCookies !== undefined) {
      const cookies = job.rotateCookies;
      request.setupRequest = (req) => {
        const cookie = cookies[next];
        next = (next + 1) % cookies.length;
        return { ...req, headers: { ...req.headers, cookie: `portcullis-session=${cookie}` } };
      };
    }
    if (job.flood === true) {
      request.setupRequest = (req) => {
        const b = randomBytes(6);
        // A different name and client address per attempt: neither the account lock nor the
        // per-address lock stops the flood, so bcrypt stays busy for the whole run.
        const ip = `10.${b[0]}.${b[1]}.${(b[2] % 250) + 1}`;
        return {
          ...req,
          headers: { ...req.headers, 'x-forwarded-for': ip },
          body: JSON.stringify({ username: `flood-${b.toString('hex')}`, password: 'wrong-password' }),
        };
      };
    }
    return request;
  });
}

process.once('message', (job) => {
  const options = {
    url: job.url,
    connections: job.connections,
    pipelining: 1,
    requests: buildRequests(job),
    timeout: 10,
  };
  if (job.amount !== undefined) options.amount = job.amount;
  else options.duration = job.duration;
  const instance = autocannon(options, (error, result) => {
    if (error) {
      process.send({ type: 'error', message: String(error && error.message) }, () => process.exit(1));
      return;
    }
    const seconds = Math.max(result.duration, 0.001);
    process.send(
      {
        type: 'result',
        total: result.requests.total,
        rate: result.requests.total / seconds,
        seconds,
        p50: result.latency.p50,
        p99: result.latency.p99,
        max: result.latency.max,
        errors: result.errors,
        timeouts: result.timeouts,
        statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats || {}).map(([code, s]) => [code, s.count])),
      },
      () => process.exit(0),
    );
  });
  process.on('message', (m) => {
    if (m === 'stop') instance.stop();
  });
});
