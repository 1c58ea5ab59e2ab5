// The shared ledger file under concurrent writers: separate processes, one lock, no lost update.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './helpers.mjs';
import { runCli } from '../support/run-action.mjs';

const ledgerModule = join(repoRoot, 'dist/lib/ledger-file.js');

function writer(path, id, count) {
  // Each update records a window of its own resource, so a lost update is a missing resource.
  // The read-modify-write is plain JS: what is under test is the lock (the core's merge under it
  // is the next test's, through `deferral observe`).
  const script = `
    import { withLock } from ${JSON.stringify(ledgerModule)};
    for (let i = 0; i < ${count}; i++) {
      withLock({ path: ${JSON.stringify(path)}, limit: 1 << 20, wait_ms: 10000, stale_ms: 30000 }, (bytes) => {
        const ledger = bytes ? JSON.parse(bytes.toString('utf8')) : { version: 'deferral-ledger-v1', resources: {}, secondary: null };
        ledger.resources['w${id}_' + i] = { limit: 100, remaining: 100 - i, used: i, reset: 2000000000 };
        const remaining = Math.min(ledger.resources.core?.remaining ?? Infinity, 5000 - ${id} * 100 - i);
        ledger.resources.core = { limit: 5000, remaining, reset: 2000000000 };
        return { ledger: JSON.stringify(ledger) };
      });
    }`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${id} exited ${code}`))));
  });
}

test('six processes updating one ledger file lose no observation', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'deferral-ledger-'));
  const path = join(dir, 'ledger.json');
  const writers = 6;
  const each = 25;
  await Promise.all(Array.from({ length: writers }, (_, id) => writer(path, id, each)));
  const ledger = JSON.parse(readFileSync(path, 'utf8'));
  const names = Object.keys(ledger.resources).filter((n) => n.startsWith('w'));
  assert.equal(names.length, writers * each);
  // Within one window remaining only goes down: the lowest any writer saw.
  assert.equal(ledger.resources.core.remaining, 5000 - (writers - 1) * 100 - (each - 1));
  assert.equal(existsSync(`${path}.lock`), false, 'the lock is released');
  assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.tmp')), [], 'no temporary file is left');
});

test('deferral observe from several processes at once keeps every strike and the lowest remaining', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'deferral-observe-'));
  const ledger = join(dir, 'ledger.json');
  const runs = await Promise.all(Array.from({ length: 6 }, (_, i) => runCli(['observe', '--ledger-file', ledger,
    '--status', '200', '--header', 'x-ratelimit-limit: 5000', '--header', `x-ratelimit-remaining: ${4000 - i}`,
    '--header', 'x-ratelimit-reset: 2000000000', '--header', 'x-ratelimit-resource: core'])));
  for (const run of runs) assert.equal(run.status, 0, run.stdout);
  assert.equal(JSON.parse(readFileSync(ledger, 'utf8')).resources.core.remaining, 3995);
});

test('a lock left by a crashed writer is broken', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'deferral-stale-'));
  const ledger = join(dir, 'ledger.json');
  // A pid that is not running on this host (the kernel's pid_max is below 2^22).
  writeFileSync(`${ledger}.lock`, `${(await import('node:os')).hostname()} 4194304 0123456789abcdef`);
  const run = await runCli(['observe', '--ledger-file', ledger, '--status', '200', '--header', 'x-ratelimit-limit: 10',
    '--header', 'x-ratelimit-remaining: 5', '--header', 'x-ratelimit-reset: 2000000000']);
  assert.equal(run.status, 0, run.stdout);
  assert.equal(existsSync(`${ledger}.lock`), false);
});
