'use strict';
// The protected application of the proxy scenarios: a minimal node:http server answering a short
// 200 to everything, doing no work. It echoes the Remote-User header the proxy handed it (so the
// bench can check that the identity the auth server vouched for arrived), nothing else.
const http = require('node:http');

const BODY = Buffer.from('ok\n');

const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': BODY.length, 'x-seen-user': req.headers['remote-user'] ?? '' });
  res.end(req.method === 'HEAD' ? undefined : BODY);
});
// Longer than any proxy's idle upstream connection, so a pooled connection is never closed under it.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 10_000;

process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => process.send({ type: 'listening', port: server.address().port }));
