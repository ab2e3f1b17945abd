'use strict';
// One forward-auth case over real HTTP in one process, timed with `/usr/bin/time` or profiled with
// `node --cpu-prof` (under valgrind its connections were reset, so it does not count instructions
// yet): a node:http server with the gateway's listener, or a bare one giving
// the same answer (HTTP_DRIVER_TARGET=bare, as bench/bare-server.js does), and CONNECTIONS raw
// keep-alive sockets each sending its next request when the last answer arrived (as autocannon
// does). Unlike bench/hot-path.js this includes Node's own HTTP work (parsing, headers, writev),
// so it shows what a change to how the answer is written costs or saves.
//
//   HTTP_DRIVER_CASE=basic HTTP_DRIVER_REQUESTS=20000 node bench/http-driver.js
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { benchHash, benchGateway, benchSessionToken, caseHeaders } = require('./forward-auth-cases');

const CASE = process.env.HTTP_DRIVER_CASE || 'cookie';
const TARGET = process.env.HTTP_DRIVER_TARGET || 'gateway';
const REQUESTS = Number(process.env.HTTP_DRIVER_REQUESTS || 20_000);
const CONNECTIONS = Number(process.env.HTTP_DRIVER_CONNECTIONS || 50);

function listen(listener) {
  const server = http.createServer(listener);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function probe(port, head) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/api/auth/traefik', headers: head, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** CONNECTIONS sockets, REQUESTS requests in all, one in flight per socket; resolves when all were answered. */
function drive(port, raw, total) {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = 0;
    for (let c = 0; c < CONNECTIONS; c += 1) {
      const socket = net.connect(port, '127.0.0.1');
      let tail = '';
      const next = () => {
        if (sent >= total) return socket.end();
        sent += 1;
        socket.write(raw);
      };
      socket.setEncoding('latin1');
      socket.on('connect', next);
      socket.on('error', reject);
      socket.on('data', (text) => {
        // Count answers by their status lines (a JSON body never holds one).
        const seen = (tail + text).split('HTTP/1.1 ').length - 1;
        tail = text.slice(-8);
        for (let i = 0; i < seen; i += 1) {
          answered += 1;
          if (answered === total) resolve();
          next();
        }
      });
    }
  });
}

async function main() {
  const hash = benchHash(4);
  // Its own database, as the bench's gateways have (the default store without REDIS_URL).
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portcullis-http-driver-'));
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const gateway = benchGateway(hash, { DATA_DIR: dataDir, BASIC_CACHE_TTL: '3600' });
  await gateway.start();
  const cases = caseHeaders(benchSessionToken(hash), { 'user-agent': 'bench' });
  const head = cases[CASE];
  if (head === undefined) throw new Error(`unknown case ${CASE}`);

  const server = await listen((req, res) => gateway.listener(req, res));
  let port = server.address().port;
  const answer = await probe(port, head);
  if (TARGET === 'bare') {
    server.close();
    const headers = { ...answer.headers };
    for (const h of ['date', 'connection', 'keep-alive', 'transfer-encoding']) delete headers[h];
    const bare = await listen((req, res) => {
      res.writeHead(answer.status, headers);
      res.end(req.method === 'HEAD' ? undefined : answer.body);
    });
    port = bare.address().port;
  }
  const raw = `GET /api/auth/traefik HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n${Object.entries(head)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  await drive(port, raw, REQUESTS);
  process.stdout.write(`${CASE} ${TARGET} ${answer.status} ${REQUESTS}\n`);
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`http-driver failed: ${e.stack}\n`);
  process.exit(2);
});
