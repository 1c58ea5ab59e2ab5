// The shared provider-answer vectors (tests/vectors/responses) through the committed dist/:
// Node must read GitHub's answers exactly as the native core does (core/tests/response_vectors.rs
// checks the same files natively, whole). Through dist/ they go the way the shipped shell sends
// them: a live answer as the crossing after the gate's one request, a saved file as
// `deferral gate --rate-state`, an observed answer as `deferral observe`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../dist/lib/wasm.js';
import { deferral, repoRoot } from './helpers.mjs';

const dir = join(repoRoot, 'tests/vectors/responses');
const vectors = readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
  .map((file) => ({ file, ...JSON.parse(readFileSync(join(dir, file), 'utf8')) }));
const work = mkdtempSync(join(tmpdir(), 'deferral-responses-'));

test('a gate reads every live provider answer vector as the native core, with the exact stop', () => {
  assert.ok(vectors.length >= 20, `expected the response vectors, found ${vectors.length}`);
  const live = vectors.filter((v) => v.entry === 'rate-state' && v.input.source === 'live');
  assert.ok(live.length >= 10, `expected the live vectors, found ${live.length}`);
  for (const v of live) {
    const { status, headers, body, now_ms } = v.input;
    const crossing = (n, extra) => run(JSON.stringify({ surface: 'cli', crossing: n, now_ms,
      argv: ['gate', '--scope', 'vectors', '--rest-reserve', '1', '--graphql-reserve', '1'],
      env: { GITHUB_TOKEN: 'test-token-not-real', GITHUB_API_URL: 'http://127.0.0.1:9' }, ...extra }), new Uint8Array());
    assert.equal(crossing(0).step, 'fetch', v.file);
    const done = crossing(1, { answer: { status, headers, body } });
    assert.equal(done.step, 'done', v.file);
    const line = JSON.parse(done.stdout);
    if (v.expected.ok) {
      assert.ok(['ready', 'deferred'].includes(line.status), `${v.file}: ${done.stdout}`);
      assert.equal(line.unlimited, v.expected.snapshot?.unlimited ?? false, v.file);
    } else {
      assert.equal(done.process_exit, v.expected.exit, `${v.file}: ${done.stdout}`);
      assert.deepEqual(line.error, v.expected.error, v.file);
    }
  }
});

test('deferral gate --rate-state reads each saved file vector as the core does, with the exact message', () => {
  const files = vectors.filter((v) => v.entry === 'rate-state' && v.input.source === 'file');
  assert.ok(files.length >= 4);
  for (const v of files) {
    const path = join(work, `${v.file}.txt`);
    writeFileSync(path, v.input.text);
    const run = deferral(['gate', '--rate-state', path, '--scope', 'vectors', '--rest-reserve', '1', '--graphql-reserve', '1']);
    if (v.expected.ok) {
      assert.equal(run.status, 0, `${v.file}: ${run.stdout}`);
      assert.equal(run.json.status, 'ready', v.file);
      assert.equal(run.json.unlimited, v.expected.snapshot.unlimited, v.file);
    } else {
      assert.equal(run.status, v.expected.exit, `${v.file}: ${run.stdout}`);
      assert.deepEqual(run.json.error, v.expected.error, v.file);
    }
  }
});

test('deferral observe records each observe vector as the core does', () => {
  for (const v of vectors.filter((x) => x.entry === 'observe')) {
    const ledger = join(work, `${v.file}.ledger.json`);
    const args = ['observe', '--ledger-file', ledger];
    if (v.input.text !== undefined) {
      const saved = join(work, `${v.file}.http`);
      writeFileSync(saved, v.input.text);
      args.push('--response', saved);
    } else {
      const body = join(work, `${v.file}.body`);
      writeFileSync(body, v.input.body);
      args.push('--status', String(v.input.status), '--body', body);
      for (const [name, value] of v.input.headers) args.push('--header', `${name}: ${value}`);
    }
    if (v.input.path) args.push('--path', v.input.path);
    const run = deferral(args);
    assert.equal(run.status, 0, `${v.file}: ${run.stdout}${run.stderr}`);
    assert.equal(run.json.kind, v.expected.kind, v.file);
    assert.equal(run.json.resource, v.expected.resource, v.file);
    assert.deepEqual(run.json.buckets, v.expected.buckets, v.file);
    const written = JSON.parse(readFileSync(ledger, 'utf8'));
    assert.deepEqual(Object.keys(written.resources).sort(), Object.keys(v.expected.ledger.resources).sort(), v.file);
    assert.equal(written.secondary === null, v.expected.ledger.secondary === null, v.file);
  }
});
