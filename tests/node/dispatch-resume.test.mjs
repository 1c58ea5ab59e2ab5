// The workflow-dispatch loop end to end: deferral-host's ticker dispatches the workflow with the
// receipt as an input, the dispatched run's Action resumes that receipt against fresh rate
// state (ready), and the outcome is reported back to the host, which marks the deferral complete.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAction, runnerEnv } from '../support/run-action.mjs';
import { TEST_TOKEN, rateLimitBody } from '../support/fake-github.mjs';
import { dueReceipt, scopeOf } from '../support/receipts.mjs';
import { ensureHostBinary, hostBinary } from '../support/host-serve.mjs';

/** A loopback GitHub: healthy /rate_limit, and a dispatches endpoint that records each POST. */
async function startGitHub() {
  const dispatches = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      if (req.method === 'POST' && req.url.endsWith('/actions/workflows/resume.yml/dispatches')) {
        dispatches.push({ url: req.url, authorization: req.headers.authorization, body: JSON.parse(body) });
        res.writeHead(204).end();
        return;
      }
      if (req.method === 'GET' && req.url === '/rate_limit') {
        res.writeHead(200, { 'content-type': 'application/json', date: new Date().toUTCString() });
        res.end(JSON.stringify(rateLimitBody()));
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, dispatches, close: () => new Promise((r) => server.close(r)) };
}

/** Runs a host command asynchronously: the loopback GitHub in this process must keep answering. */
function host(db, args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(hostBinary, ['--store', `sqlite:${db}`, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('error', reject);
    child.on('close', (status) => {
      if (status !== 0) reject(new Error(`deferral-host ${args.join(' ')} exited ${status}: ${out}${err}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)));
    });
  });
}

test('a dispatched run resumes the receipt it is given, and reports the outcome back', async () => {
  ensureHostBinary();
  const gh = await startGitHub();
  const dir = mkdtempSync(join(tmpdir(), 'deferral-dispatch-'));
  try {
    const db = join(dir, 'host.db');
    // The receipt a gate in this workflow and job would have emitted, due now.
    const receipt = dueReceipt({ scope: scopeOf(runnerEnv(gh.url)), freshApproval: false });
    writeFileSync(join(dir, 'receipt.json'), JSON.stringify(receipt));
    await host(db, ['init']); // only init creates a store
    const recorded = await host(db, ['record', '--launch', 'workflow-dispatch:octo-org/app/resume.yml@main', join(dir, 'receipt.json')]);

    const tick = await host(db, ['tick'], { GITHUB_API_URL: gh.url, GITHUB_TOKEN: TEST_TOKEN });
    assert.equal(gh.dispatches.length, 1, `one dispatch: ${JSON.stringify(tick)}`);
    const { inputs } = gh.dispatches[0].body;
    assert.deepEqual(Object.keys(inputs).sort(), ['attempt', 'deferral_id', 'receipt']);
    assert.equal(inputs.deferral_id, recorded.id);

    // The dispatched workflow's step: the Action with the receipt input, as a runner runs it.
    const run = await runAction(gh.url, { receipt: inputs.receipt });
    try {
      assert.equal(run.outputs.status, 'ready', `${run.stdout}${run.stderr}`);
      assert.equal(run.status, 0);
    } finally {
      run.cleanup();
    }

    // After the work, the run (or its operator) reports the outcome to the host.
    await host(db, ['report', recorded.id, '--attempt', inputs.attempt, '--outcome', 'complete', '--handle', recorded.cancellation_handle]);
    const status = await host(db, ['status', '--json', recorded.id]);
    const row = Array.isArray(status) ? status[0] : (status.deferrals?.[0] ?? status);
    assert.equal(row.state, 'complete');
    // A second tick dispatches nothing more.
    await host(db, ['tick'], { GITHUB_API_URL: gh.url, GITHUB_TOKEN: TEST_TOKEN });
    assert.equal(gh.dispatches.length, 1);
  } finally {
    await gh.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
