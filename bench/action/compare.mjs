#!/usr/bin/env node
// Compares builds of the Action side by side: each DIR is a copy of dist/ (with main.js), run as
// a gate against the loopback API, interleaved with a bare `node -e 0` and the six-line floor
// (floor.mjs). --cpu reports each process's CPU time (user + system, all threads, read at exit)
// instead of wall time: on a shared machine it moves far less with the load, so it shows which
// of two builds does less work even when wall times are drowned in noise.
// Usage: node bench/action/compare.mjs [--runs N] [--cpu] DIR...    Prints one JSON object.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startFakeGitHub, TEST_TOKEN } from '../../tests/support/fake-github.mjs';
import { median } from '../util.mjs';
import { FLOOR } from './floor.mjs';

const { values, positionals } = parseArgs({ options: { runs: { type: 'string', default: '15' }, cpu: { type: 'boolean', default: false } }, allowPositionals: true });
if (positionals.length === 0) {
  console.error('usage: node bench/action/compare.mjs [--runs N] [--cpu] DIR...  (each DIR a copy of dist/)');
  process.exit(2);
}
const runs = Number(values.runs);

const gh = await startFakeGitHub({ scenario: 'ready' });
const work = mkdtempSync(join(tmpdir(), 'deferral-compare-'));
const env = {
  PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_API_URL: gh.url, GITHUB_REPOSITORY: 'bench/bench',
  GITHUB_WORKFLOW_REF: 'bench/bench/.github/workflows/b.yml@refs/heads/main', GITHUB_JOB: 'b',
  GITHUB_OUTPUT: join(work, 'output'), GITHUB_STEP_SUMMARY: join(work, 'summary'), RUNNER_TEMP: work, INPUT_TOKEN: TEST_TOKEN,
};
writeFileSync(env.GITHUB_OUTPUT, '');
writeFileSync(env.GITHUB_STEP_SUMMARY, '');
writeFileSync(join(work, 'floor.mjs'), FLOOR);
const atExit = join(work, 'cpu-at-exit.cjs');
writeFileSync(atExit, "process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write(`cpu-ms ${(u.user + u.system) / 1000}\\n`); });");

function measure(args) {
  return new Promise((done, fail) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, values.cpu ? ['-r', atExit, ...args] : args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => {
      const wall = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) fail(new Error(`${args.join(' ')} exited ${code}: ${stderr}`));
      else done(values.cpu ? Number(/cpu-ms ([\d.]+)/.exec(stderr)[1]) : wall);
    });
  });
}

const entries = [['node -e 0', ['-e', '0']], ['floor', [join(work, 'floor.mjs')]], ...positionals.map((d) => [d, [join(resolve(d), 'main.js')]])];
const times = entries.map(() => []);
for (const [, args] of entries) await measure(args); // warm the file cache
for (let i = 0; i < runs; i++) {
  for (let k = 0; k < entries.length; k++) times[k].push(await measure(entries[k][1]));
}
await gh.close();
rmSync(work, { recursive: true, force: true });

const bare = median(times[0]);
const floor = median(times[1]);
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
console.log(JSON.stringify({
  command: `node bench/action/compare.mjs --runs ${runs}${values.cpu ? ' --cpu' : ''}`,
  node: process.version,
  measure: values.cpu ? 'CPU ms (median)' : 'wall ms (median)',
  results: entries.map(([name], k) => ({ name, ms: round(median(times[k]), 1), over_bare: round(median(times[k]) / bare), over_floor: round(median(times[k]) / floor) })),
}, null, 1));
