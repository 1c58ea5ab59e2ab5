// The human verdict (`--verdict`, or stderr on a terminal) shows a durable port's words, and the
// Actions runner reads workflow commands from a step's stderr too: every outside word there is
// one line, with control characters (C0, C1, DEL, ESC) and bidi controls escaped, so a hostile
// port on loopback can neither start a line of its own (`::warning::forged`), restyle the
// terminal nor reorder what a person reads (issue 29 item 4).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeGitHub, TEST_TOKEN } from '../support/fake-github.mjs';
import { startHostilePort } from '../support/hostile-port.mjs';
import { runCli } from '../support/run-action.mjs';

const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));

const HOSTILE = 'refused\n::warning::forged\r\u001b[2J\u001b]0;title\u0007 \u202eevil\u2066 \u0085next \u009b31m \u007f end';
const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]/u;

async function gateAgainst(answer, extra = []) {
  const gh = await startFakeGitHub({ scenario: 'rest-low' });
  servers.push(gh);
  const port = await startHostilePort(answer);
  servers.push(port);
  return runCli(['gate', '--api-url', gh.url, '--scope', 'verdict', '--coordinator-url', port.url,
    '--coordinator-launch', 'workflow-dispatch:o/r/w.yml@main', '--verdict', ...extra],
  { env: { GITHUB_TOKEN: TEST_TOKEN, DEFERRAL_COORDINATOR_TOKEN: 'test-token-not-real' } });
}

function assertOneLineEach(stderr) {
  assert.ok(stderr.length > 0, 'a verdict was printed');
  const lines = stderr.split('\n');
  assert.ok(!lines.some((l) => l.startsWith('::')), `no line of the port's own: ${JSON.stringify(stderr)}`);
  assert.ok(!FORBIDDEN.test(stderr.replace(/\n/g, '')), `no raw control or bidi character: ${JSON.stringify(stderr)}`);
}

test("a port's refusal reaches the verdict as one escaped line", async () => {
  const run = await gateAgainst(() => ({ status: 422, body: { error: { code: 'refused\n::error::x', message: HOSTILE } } }));
  assert.equal(run.json?.status, 'error', run.stdout);
  assertOneLineEach(run.stderr);
  assert.ok(run.stderr.includes('refused\\u{a}::warning::forged'), run.stderr);
  assert.ok(run.stderr.includes('\\u{202e}evil'), run.stderr);
  assert.ok(run.stderr.includes('\\u{1b}[2J'), run.stderr);
});

test("a pool's refusal reason from the port is escaped too", async () => {
  const run = await gateAgainst(() => ({ status: 503, body: { error: { code: 'busy', message: HOSTILE } } }), ['--coordinator-pool', 'app-42']);
  assert.equal(run.json?.status, 'error', run.stdout);
  assertOneLineEach(run.stderr);
  assert.ok(run.stderr.includes('::warning::forged'), 'the words are there, escaped');
});
