// Where a gate keeps the cancellation handle a durable port gave it (issue 29 item 5). TMPDIR is
// often shared (/tmp): the gate keeps its files in a folder of its own user (TMPDIR/deferral-UID,
// made 0700; RUNNER_TEMP/deferral on a runner), checks that folder before the port is told to
// retain anything, and ends with a coded error, never a stack trace, after the port answered.
// "Another user" is `nobody`: the tests that run a gate as another user need root.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeGitHub, TEST_TOKEN } from '../support/fake-github.mjs';
import { startHostilePort } from '../support/hostile-port.mjs';
import { cliPath } from './helpers.mjs';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
const HANDLE = 'c'.repeat(64);
const servers = [];
const dirs = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function sharedTmp() {
  const dir = mkdtempSync(join(tmpdir(), 'deferral-shared-'));
  chmodSync(dir, 0o1777); // as /tmp is
  dirs.push(dir);
  return dir;
}

/** A port that counts the receipts it was asked to retain and retains them as `id`. */
async function countingPort(id) {
  const asked = { count: 0 };
  const port = await startHostilePort((receipt) => {
    asked.count++;
    return {
      status: 201,
      body: { id, receipt: { ...receipt, ownership: { disposition: 'retained', mode: 'durable-host', wakeup_digest: 'a'.repeat(64), cancellation_digest: 'b'.repeat(64) } }, cancellation_handle: HANDLE },
    };
  });
  servers.push(port);
  return { port, asked };
}

async function gate(tmp, portUrl, { uid } = {}) {
  const gh = await startFakeGitHub({ scenario: 'rest-low' });
  servers.push(gh);
  const args = [cliPath, 'gate', '--api-url', gh.url, '--scope', 'handles', '--coordinator-url', portUrl,
    '--coordinator-launch', 'workflow-dispatch:o/r/w.yml@main'];
  const env = { PATH: process.env.PATH, HOME: '/nonexistent', TMPDIR: tmp, GITHUB_TOKEN: TEST_TOKEN, DEFERRAL_COORDINATOR_TOKEN: 'test-token-not-real' };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'], ...(uid === undefined ? {} : { uid, gid: uid }) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (status) => {
      let json = null;
      try { json = JSON.parse(stdout.trim().split('\n').at(-1)); } catch { /* not JSON */ }
      resolve({ status, stdout, stderr, json });
    });
  });
}

const noStackTrace = (run) => assert.ok(!/^\s+at .+:\d+:\d+\)?$/m.test(run.stderr), `no stack trace: ${run.stderr}`);

test("a second user's gate keeps its handle although the first made TMPDIR/deferral", { skip: !isRoot && 'needs root to run a gate as nobody' }, async () => {
  const tmp = sharedTmp();
  mkdirSync(join(tmp, 'deferral'), { mode: 0o755 }); // the first user's gate made it, as before
  const { port, asked } = await countingPort('dsecond');
  const run = await gate(tmp, port.url, { uid: NOBODY });
  noStackTrace(run);
  assert.equal(run.status, 6, `${run.stdout}\n${run.stderr}`);
  assert.equal(asked.count, 1);
  const path = run.json.cancellation_handle_path ?? run.json.handle_path ?? Object.values(run.json).find((v) => typeof v === 'string' && v.includes('cancellation-handle-'));
  assert.ok(path, JSON.stringify(run.json));
  assert.equal(path, join(tmp, `deferral-${NOBODY}`, 'cancellation-handle-dsecond'));
  assert.equal(readFileSync(path, 'utf8').trim(), HANDLE);
  const file = statSync(path);
  assert.deepEqual([file.uid, file.mode & 0o777], [NOBODY, 0o600]);
  const folder = statSync(join(tmp, `deferral-${NOBODY}`));
  assert.deepEqual([folder.uid, folder.mode & 0o777], [NOBODY, 0o700]);
});

test('a folder someone else put at our private name is refused before the port is told', async () => {
  const tmp = sharedTmp();
  const uid = process.getuid();
  const planted = join(tmp, `deferral-${uid}`);
  mkdirSync(planted);
  chmodSync(planted, 0o777);
  if (isRoot) chownSync(planted, NOBODY, NOBODY);
  const { port, asked } = await countingPort('dplanted');
  const run = await gate(tmp, port.url);
  noStackTrace(run);
  assert.equal(run.json?.error?.code, 'unsafe-temp-folder', `${run.stdout}\n${run.stderr}`);
  assert.ok(run.json.error.message.includes(planted), run.json.error.message);
  assert.equal(asked.count, 0, 'the port was never asked to retain');
  assert.ok(!existsSync(join(planted, 'cancellation-handle-dplanted')));
});

test('a handle that cannot be written after the port answered is a coded error, not a stack trace', async () => {
  const tmp = sharedTmp();
  const uid = process.getuid();
  // A file already where the handle goes, in the old shared folder and in our own.
  for (const dir of ['deferral', `deferral-${uid}`]) {
    mkdirSync(join(tmp, dir), { mode: 0o700 });
    writeFileSync(join(tmp, dir, 'cancellation-handle-dtaken'), 'someone else\n');
  }
  const { port, asked } = await countingPort('dtaken');
  const run = await gate(tmp, port.url);
  noStackTrace(run);
  assert.equal(asked.count, 1);
  assert.equal(run.json?.error?.code, 'unwritable-file', `${run.stdout}\n${run.stderr}`);
  assert.match(run.json.error.message, /retained the receipt as deferral dtaken/);
  assert.equal(run.stdout.trim().split('\n').length, 1, `one JSON line: ${run.stdout}`);
});
