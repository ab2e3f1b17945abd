'use strict';
// The proxy's own ceiling: a bare node:http auth server that answers every forward-auth request
// with the bytes the gateway gave for the same case (status, headers, body), doing no work.
//
// The answer is recorded through the proxy itself: after a 'record' message the next request the
// proxy sends here is passed on to the gateway unchanged (method, path, headers, body), and the
// gateway's answer is kept and given to that request and to every later one. So the bare server
// answers exactly what the gateway answered to the very subrequest this proxy configuration makes.
const http = require('node:http');

let answer = { status: 500, headers: {}, body: Buffer.alloc(0) };
/** The gateway's forward-auth URL while recording, else null. */
let recordFrom = null;

const HOP = ['date', 'connection', 'keep-alive', 'transfer-encoding'];

function record(req, res) {
  const from = new URL(recordFrom);
  recordFrom = null;
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const headers = { ...req.headers };
    delete headers.connection;
    const out = http.request({ host: from.hostname, port: from.port, method: req.method, path: req.url, headers, agent: false }, (got) => {
      const body = [];
      got.on('data', (c) => body.push(c));
      got.on('end', () => {
        const kept = { ...got.headers };
        for (const h of HOP) delete kept[h];
        answer = { status: got.statusCode, headers: kept, body: Buffer.concat(body) };
        reply(req, res);
        process.send({ type: 'recorded', method: req.method, path: req.url, status: answer.status, headers: answer.headers, bodyLength: answer.body.length });
      });
    });
    out.on('error', (e) => process.send({ type: 'error', message: e.message }));
    out.end(Buffer.concat(chunks));
  });
}

function reply(req, res) {
  res.writeHead(answer.status, answer.headers);
  res.end(req.method === 'HEAD' ? undefined : answer.body);
}

const server = http.createServer((req, res) => (recordFrom !== null ? record(req, res) : reply(req, res)));
// Same connection handling as the gateway, so the same Keep-Alive header goes out.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 10_000;
server.requestTimeout = 30_000;

// Connections the proxy opened to this server: how well the proxy reuses them for this answer.
let connections = 0;
server.on('connection', () => {
  connections += 1;
});

process.on('message', (m) => {
  if (m.type === 'count') {
    process.send({ type: 'count', connections });
    return;
  }
  if (m.type !== 'record') return;
  recordFrom = m.from;
  process.send({ type: 'recording' });
});
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => process.send({ type: 'listening', port: server.address().port }));
