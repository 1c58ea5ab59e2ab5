// The README's durable-host commands, as written, on a fresh machine: a HOME with no
// ~/.deferral yet, so `export DEFERRAL_STORE=sqlite:$HOME/.deferral/host.db` only works if the
// host creates the store's folder. Only the placeholders (ID, CANCELLATION_HANDLE) are filled in
// from what `record` printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoRoot } from './helpers.mjs';
import { hostBinary, ensureHostBinary } from '../support/host-serve.mjs';

/** The `$ ` commands of the first console block after the heading `heading`. */
function readmeCommands(heading) {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf(heading));
  const block = /```console\n([\s\S]*?)```/.exec(section)[1];
  return block.split('\n').filter((l) => l.startsWith('$ ')).map((l) => l.slice(2));
}

/** The gate's JSON line of a job deferred for ten minutes: its deferredReceipt is a handoff
 * receipt resumable for an hour, with the plan's cost and the rate state the gate saw. */
function gateLine() {
  const reset = Math.floor(Date.now() / 1000) + 600;
  return JSON.stringify({
    status: 'deferred', mode: 'gate', code: 'core-below-reserve', reason: 'rest-reserve',
    rest: { limit: 5000, remaining: 120, reserve: 500, plannedCost: 38, reset, ok: false },
    graphql: null, plan: { rest: 38, graphql: 0, contentCreating: 0 },
    deferredReceipt: JSON.parse(handoff()),
  });
}

/** A handoff receipt due in ten minutes, resumable for an hour. */
function handoff() {
  const now = Date.now();
  return JSON.stringify({
    schema: 1, version: 'deferred-receipt-v1', status: 'deferred', reason: 'rest-reserve',
    issued_at_ms: now, resume_after_ms: now + 600_000, resume_by_ms: now + 4_200_000,
    bindings: { scope_digest: 'a'.repeat(64), request_digest: 'b'.repeat(64), plan_digest: null },
    ownership: { disposition: 'handoff', mode: 'governed-handoff', wakeup_digest: null, cancellation_digest: null },
    fresh_approval_required: true,
  });
}

test('README durable-host commands work as written on a fresh HOME', () => {
  ensureHostBinary();
  const commands = readmeCommands('## The durable host');
  assert.match(commands[0], /^export DEFERRAL_STORE=sqlite:\$HOME\/\.deferral\/host\.db/);
  const home = mkdtempSync(join(tmpdir(), 'deferral-readme-home-'));
  try {
    // The operator's own resume program, which record checks is there (issue 21).
    mkdirSync(join(home, 'bin'));
    writeFileSync(join(home, 'bin/resume-sync.sh'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    writeFileSync(join(home, 'gate.json'), gateLine());
    const env = { PATH: `${dirname(hostBinary)}:${process.env.PATH}`, HOME: home };
    let recorded = null;
    const lines = [];
    for (const command of commands) {
      const filled = recorded ? command.replace(' ID ', ` ${recorded.id} `).replace('CANCELLATION_HANDLE', recorded.cancellation_handle) : command;
      lines.push(filled);
      // Each command runs after the README's export, in one shell, as a person would type them.
      const run = spawnSync('sh', ['-c', lines.filter((l) => l.startsWith('export ')).concat(filled.startsWith('export ') ? [] : [filled]).join('\n')], { cwd: home, env, encoding: 'utf8' });
      assert.equal(run.status, 0, `$ ${filled}\n${run.stdout}${run.stderr}`);
      if (/ record /.test(filled)) recorded = JSON.parse(run.stdout.trim().split('\n').at(-1));
      if (/ cancel /.test(filled)) assert.equal(JSON.parse(run.stdout.trim()).state, 'cancelled');
    }
    assert.ok(recorded, 'the README records a receipt');
    assert.ok(existsSync(join(home, '.deferral/host.db')), 'the store is where the README says');
    assert.equal(statSync(join(home, '.deferral')).mode & 0o777, 0o700, 'the folder is private, as the README says');
    assert.equal(statSync(join(home, '.deferral/host.db')).mode & 0o777, 0o600, 'the store file too');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
