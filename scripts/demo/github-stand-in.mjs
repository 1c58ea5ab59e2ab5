// The demo's loopback stand-in for GitHub's GET /rate_limit: the REST window is nearly spent
// until it resets a few seconds after start, then it is full again, as GitHub's would be.
// Answers in the documented shape (resources.{core,graphql,...}, x-ratelimit-* headers).
// Usage: node scripts/demo/github-stand-in.mjs RESET_IN_SECONDS   (prints {"port":N} when listening)
import http from 'node:http';

const resetInSeconds = Number(process.argv[2] ?? 5);
const startedAt = Math.floor(Date.now() / 1000);
const firstReset = startedAt + resetInSeconds;
let requests = 0;

function resources() {
  const now = Math.floor(Date.now() / 1000);
  const spent = now < firstReset;
  const core = spent
    ? { limit: 5000, used: 4997, remaining: 3, reset: firstReset }
    : { limit: 5000, used: 0, remaining: 5000, reset: firstReset + 3600 };
  const graphql = { limit: 5000, used: 12, remaining: 4988, reset: startedAt + 3600 };
  return {
    core,
    graphql,
    search: { limit: 30, used: 0, remaining: 30, reset: now + 60 },
    integration_manifest: { limit: 5000, used: 0, remaining: 5000, reset: now + 3600 },
  };
}

const server = http.createServer((req, res) => {
  requests += 1;
  if (req.method !== 'GET' || req.url !== '/rate_limit') {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: 'Not Found' }));
    return;
  }
  const body = { resources: resources() };
  body.rate = body.resources.core;
  const core = body.resources.core;
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    date: new Date().toUTCString(),
    'x-ratelimit-limit': String(core.limit),
    'x-ratelimit-remaining': String(core.remaining),
    'x-ratelimit-used': String(core.used),
    'x-ratelimit-reset': String(core.reset),
    'x-ratelimit-resource': 'core',
  });
  res.end(JSON.stringify(body));
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port, reset: firstReset })}\n`);
});
process.on('SIGTERM', () => {
  process.stderr.write(`    (the GitHub stand-in served ${requests} request(s) and stopped)\n`);
  server.close(() => process.exit(0));
});
