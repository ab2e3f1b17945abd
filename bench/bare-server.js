'use strict';
// The physical limit: a bare node:http server that gives exactly the answer it is told to give
// (status, headers, body), doing no work. The orchestrator sets the answer over IPC before each
// scenario, copied from what the gateway answered.
const http = require('node:http');

let status = 200;
let headers = {};
let body = Buffer.alloc(0);

const server = http.createServer((req, res) => {
  res.writeHead(status, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
});
// Same connection handling as the gateway, so the same Keep-Alive header goes out.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 10_000;
server.requestTimeout = 30_000;

process.on('message', (m) => {
  if (m.type !== 'answer') return;
  status = m.status;
  headers = m.headers;
  body = Buffer.from(m.body, 'base64');
  process.send({ type: 'answer-set' });
});
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => process.send({ type: 'listening', port: server.address().port }));
