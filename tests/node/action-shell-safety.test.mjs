// The Action's shell cannot corrupt outputs or be made to print workflow commands: outputs are
// never rewritten by substring, every printed line is escaped, and a durable port's answers are
// validated before they name a file.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeGitHub } from '../support/fake-github.mjs';
import { runAction } from '../support/run-action.mjs';
import { retainingAs } from '../support/hostile-port.mjs';

const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));
async function api(scenario) {
  const s = await startFakeGitHub({ scenario });
  servers.push(s);
  return s;
}

/** Workflow commands the run printed: every `::name ...::` line except those the Action means. */
const commands = (stdout) => stdout.split('\n').filter((l) => l.startsWith('::'));

test('a scope or request that spells an output value does not rewrite the outputs', async () => {
  for (const [scope, scenario, field, value] of [
    ['ready', 'ready', 'status', 'ready'],
    ['deferred', 'rest-low', 'status', 'deferred'],
    ['rest', 'rest-low', 'reason', 'rest-reserve'],
  ]) {
    const gh = await api(scenario);
    const run = await runAction(gh.url, { scope, request: scope, 'on-deferral': 'succeed' });
    assert.equal(run.outputs[field], value, `scope ${scope}: ${run.stdout}`);
    assert.ok(!run.rawOutput.includes('***'), `scope ${scope}: nothing is starred out`);
    run.cleanup();
  }
});

test('a plan key that carries a workflow command is printed as data, never as a command', async () => {
  const gh = await api('ready');
  const plan = JSON.stringify({ rest: [{ method: 'GET', route: '/x', 'evil\n::warning::pwned\r\n::set-output name=status::ready': 1 }] });
  const run = await runAction(gh.url, { plan });
  assert.equal(run.outputs.status, 'error');
  for (const line of commands(run.stdout)) {
    assert.match(line, /^::(add-mask|error|warning|notice)( title=[^:]*)?::/, line);
    assert.ok(!/[\r\n]/.test(line));
  }
  assert.ok(!/^::warning::pwned/m.test(run.stdout), 'no forged annotation');
  assert.ok(!/^::set-output/m.test(run.stdout), 'no forged command');
  assert.ok(run.stdout.includes('%0A::warning::pwned'), 'the key is there, escaped');
  run.cleanup();
});

test('a hostile port cannot choose where the handle file goes, nor what it holds', async () => {
  for (const answer of [
    { id: '../../escaped', handle: 'c'.repeat(64) },
    { id: 'x'.repeat(200), handle: 'c'.repeat(64) },
    { id: 'dok', handle: '../not-a-handle\n' },
  ]) {
    const gh = await api('rest-low');
    const port = await retainingAs(answer);
    servers.push(port);
    const { url } = port;
    const run = await runAction(gh.url, { 'coordinator-url': url, 'coordinator-token': 'test-token-not-real', 'coordinator-launch': 'workflow-dispatch:o/r/w.yml@main' });
    assert.equal(run.outputs.status, 'error', run.stdout);
    assert.match(run.stdout, /invalid-coordinator-answer/);
    assert.equal(run.outputs['cancellation-handle-path'], '');
    assert.deepEqual(readdirSync(join(run.tempDir, 'deferral')).filter((f) => f.startsWith('cancellation-handle-')), []);
    assert.ok(!existsSync(join(run.tempDir, '..', 'escaped')));
    run.cleanup();
  }
});
