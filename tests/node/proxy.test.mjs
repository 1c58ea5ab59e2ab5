// The one request goes through the proxy the runner names: CONNECT tunnels for HTTPS,
// absolute-form requests for plain HTTP, NO_PROXY honoured, a dead proxy an error (exit 4).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeGitHub, TEST_TOKEN } from '../support/fake-github.mjs';
import { startProxy } from '../support/proxy.mjs';
import { runAction, runCli } from '../support/run-action.mjs';

let tlsFiles = null;
before(() => {
  // A throwaway certificate for localhost, trusted by the child through NODE_EXTRA_CA_CERTS.
  const dir = mkdtempSync(join(tmpdir(), 'deferral-tls-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost'], { stdio: 'ignore' });
    tlsFiles = { dir, key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } catch {
    tlsFiles = null;
  }
});
const closers = [];
after(() => Promise.all(closers.map((c) => c())));

test('HTTPS API through a CONNECT proxy (HTTPS_PROXY)', async (t) => {
  if (!tlsFiles) return t.skip('openssl is not available to make a test certificate');
  const gh = await startFakeGitHub({ scenario: 'ready', tls: { key: tlsFiles.key, cert: tlsFiles.cert } });
  const proxy = await startProxy();
  closers.push(gh.close, proxy.close);
  const run = await runAction(gh.url, {}, { env: { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: join(tlsFiles.dir, 'cert.pem') } });
  assert.equal(run.outputs.status, 'ready', run.stdout + run.stderr);
  assert.deepEqual(proxy.seen, [{ kind: 'connect', target: `localhost:${gh.port}` }]);
  assert.equal(gh.requests.length, 1);
  run.cleanup();
});

test('plain HTTP API through HTTP_PROXY, lower-case https_proxy ignored for http', async () => {
  const gh = await startFakeGitHub({ scenario: 'ready' });
  const proxy = await startProxy();
  closers.push(gh.close, proxy.close);
  const run = await runCli(['gate'], { env: { GITHUB_TOKEN: TEST_TOKEN, GITHUB_API_URL: gh.url, http_proxy: proxy.url, https_proxy: 'http://127.0.0.1:9' } });
  assert.equal(run.status, 0, run.stdout);
  assert.deepEqual(proxy.seen, [{ kind: 'http', target: `${gh.url}/rate_limit` }]);
  assert.equal(gh.requests.length, 1);
  assert.equal(gh.requests[0].authorization, `Bearer ${TEST_TOKEN}`);
});

test('NO_PROXY bypasses the proxy; a dead proxy is a transport error', async () => {
  const gh = await startFakeGitHub({ scenario: 'ready' });
  closers.push(gh.close);
  const dead = 'http://127.0.0.1:9';
  const bypass = await runCli(['gate'], { env: { GITHUB_TOKEN: TEST_TOKEN, GITHUB_API_URL: gh.url, HTTP_PROXY: dead, NO_PROXY: 'example.com,127.0.0.1' } });
  assert.equal(bypass.status, 0, bypass.stdout);
  const viaDead = await runCli(['gate'], { env: { GITHUB_TOKEN: TEST_TOKEN, GITHUB_API_URL: gh.url, HTTP_PROXY: dead } });
  assert.equal(viaDead.status, 4);
  assert.equal(viaDead.json.error.code, 'transport-error');
});
