// The admission vectors (tests/vectors/admissions/cases.json) through dist/: the same driver as
// driver/tests/admission_vectors.rs, calling the wasm core's `run` crossing by crossing and
// answering each step from the case (GitHub's GET /rate_limit, the port's POST /v1/admissions
// and POST /v1/deferrals). Native and wasm must agree on every step, body and answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './helpers.mjs';
import { run } from '../../dist/lib/wasm.js';

const doc = JSON.parse(readFileSync(join(repoRoot, 'tests/vectors/admissions/cases.json'), 'utf8'));

/** The fields of `actual` that `expected` names, recursively. */
function pick(actual, expected) {
  if (expected === null || typeof expected !== 'object' || Array.isArray(expected)) return actual;
  return Object.fromEntries(Object.keys(expected).map((k) => [k, pick(actual?.[k], expected[k])]));
}

function portReply(reply, sent) {
  let body;
  if (reply.retained_as) {
    const receipt = { ...sent.receipt, ownership: { disposition: 'retained', mode: 'durable-host', wakeup_digest: 'a'.repeat(64), cancellation_digest: 'b'.repeat(64) } };
    body = JSON.stringify({ id: reply.retained_as.id, receipt, cancellation_handle: reply.retained_as.handle });
  } else {
    body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  }
  return { status: reply.status, headers: [], body };
}

function drive(c) {
  const action = c.surface === 'action';
  let env = c.env ?? { GITHUB_TOKEN: 'test-token-not-real', DEFERRAL_COORDINATOR_TOKEN: 'test-port-token-not-real' };
  const input = { surface: action ? 'action' : 'cli', now_ms: doc.now_ms, utc_offset_min: 0, tmpdir: '/tmp', stderr_tty: false, crossing: 0, file_sizes: [] };
  if (action) {
    env = { INPUT_TOKEN: 'test-token-not-real', RUNNER_TEMP: '/tmp', GITHUB_STEP_SUMMARY: '/tmp/summary.md' };
    for (const [k, v] of Object.entries(c.inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  } else {
    input.argv = c.argv;
  }
  input.env = env;
  const out = { steps: [], sent: [], githubRequests: 0, done: null };
  for (let i = 0; i < 8; i++) {
    const step = run(JSON.stringify(input), Buffer.alloc(0));
    out.steps.push(step.step);
    if (step.step === 'done') {
      out.done = step;
      return out;
    }
    const { url, into = 'answer', error_into: errorInto = 'transport_error' } = step.request;
    const body = step.request.body === undefined || step.request.body === null ? null : JSON.parse(step.request.body);
    out.sent.push([url, body]);
    if (url.endsWith('/rate_limit')) {
      out.githubRequests++;
      input[into] = doc.github[c.github];
    } else {
      const which = url.endsWith('/v1/admissions') ? 'admission' : 'retain';
      assert.ok(which === 'admission' || url.endsWith('/v1/deferrals'), url);
      const reply = c[which];
      assert.ok(reply, `asked ${url} without a ${which} answer`);
      if (reply.error) input[errorInto] = reply.error;
      else input[into] = portReply(reply, body);
    }
    input.crossing++;
  }
  throw new Error('no done step after 8 crossings');
}

test('the admission vectors are there', () => assert.ok(doc.cases.length >= 25));

for (const c of doc.cases) {
  test(`admission vector: ${c.name}`, () => {
    const run = drive(c);
    const { done } = run;
    assert.deepEqual(run.steps, c.steps, JSON.stringify(done));
    assert.equal(done.exit, c.exit, JSON.stringify(done));
    assert.ok(run.githubRequests <= 1, 'GitHub gets one request at most');
    const sent = (end) => run.sent.find(([url]) => url.endsWith(end))?.[1];
    if (c.admit_body) assert.deepEqual(sent('/v1/admissions'), c.admit_body);
    if (c.retain_body) assert.deepEqual(pick(sent('/v1/deferrals'), c.retain_body), c.retain_body);
    if (c.retain_keys) assert.deepEqual(Object.keys(sent('/v1/deferrals')).sort(), [...c.retain_keys].sort());
    let message = '';
    if (c.surface === 'action') {
      assert.deepEqual(pick(done.outputs, c.outputs), c.outputs);
      message = done.stdout;
    } else {
      const line = JSON.parse(done.stdout);
      assert.deepEqual(pick(line, c.line), c.line);
      for (const key of c.line_lacks ?? []) assert.ok(!(key in line), key);
      if (c.resume_after) {
        const jitter = BigInt(`0x${line.bindings.request_digest.slice(0, 16)}`) % BigInt(c.resume_after.jitter_max_ms + 1);
        assert.equal(line.deferredReceipt.resume_after_ms, c.resume_after.reset_ms + c.resume_after.buffer_ms + Number(jitter));
      }
      message = line.error?.message ?? '';
    }
    for (const part of c.message_has ?? []) assert.ok(message.includes(part), `${message} lacks ${part}`);
    const summary = done.writes.filter((w) => w.path === '/tmp/summary.md').map((w) => w.text).join('');
    for (const part of c.summary_has ?? []) assert.ok(summary.includes(part), `${summary}\nlacks ${part}`);
  });
}
