#!/usr/bin/env node
// Benchmarks the Action: a gate run (process start to exit, loopback API) against a bare
// `node -e 0` and against the floor (the same request and output written by hand in six lines,
// no Deferral code: what Node itself costs for one HTTP request) in the same run; the same check built conventionally on @actions/core and
// @octokit/rest (installed by this script into a directory under os.tmpdir(), never into the
// project); the size of dist/; and the decision latency through wasm from Node.
// Usage: node bench/action/run.mjs [--runs N]    Prints one JSON object.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeGitHub, TEST_TOKEN } from '../../tests/support/fake-github.mjs';
import { median, dirBytes } from '../util.mjs';
import { FLOOR } from './floor.mjs';

const root = join(fileURLToPath(import.meta.url), '..', '..', '..');
const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag > -1 ? Number(process.argv[runsFlag + 1]) : 21;

const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

function timeProcess(args, env) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(ms);
    });
  });
}

// The conventional action: the same check with the usual libraries.
const CONVENTIONAL = `import * as core from '@actions/core';
import { Octokit } from '@octokit/rest';
const octokit = new Octokit({ auth: core.getInput('token'), baseUrl: process.env.GITHUB_API_URL });
const { data } = await octokit.rest.rateLimit.get();
const reserve = Math.ceil(data.resources.core.limit * 0.1);
const ready = data.resources.core.remaining >= reserve && data.resources.graphql.remaining >= Math.ceil(data.resources.graphql.limit * 0.1);
core.setOutput('status', ready ? 'ready' : 'deferred');
core.setOutput('rest-remaining', String(data.resources.core.remaining));
`;

function installConventional() {
  const dir = join(tmpdir(), 'deferral-bench-conventional');
  const entry = join(dir, 'index.mjs');
  if (!existsSync(join(dir, 'node_modules/@octokit/rest')) || !existsSync(join(dir, 'node_modules/@actions/core'))) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'conventional-gate', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', '@actions/core@1', '@octokit/rest@22'], { cwd: dir, stdio: 'ignore' });
  }
  writeFileSync(entry, CONVENTIONAL);
  return { entry, bytes: dirBytes(join(dir, 'node_modules')) };
}

async function decisionLatency() {
  const { call } = await import('../../dist/lib/wasm.js');
  const now = Date.now();
  const input = JSON.stringify({
    rate: { unlimited: false, resources: { core: { limit: 5000, remaining: 400, used: 4600, reset: Math.floor(now / 1000) + 1800 }, graphql: { limit: 5000, remaining: 4000, used: 1000, reset: Math.floor(now / 1000) + 1800 } } },
    plan: { rest: [{ method: 'POST', route: '/repos/{o}/{r}/issues/{n}/labels', count: 50 }], graphql: [{ query: 'query { viewer { repositories(first: 100) { nodes { issues(first: 50) { nodes { labels(first: 60) { nodes { name } } } } } } } }' }] },
    scope: { work: 'bench' }, request: { labels: ['bug'] }, now_ms: now,
  });
  for (let i = 0; i < 200; i++) call('decide', input);
  const samples = [];
  for (let i = 0; i < 2000; i++) {
    const t = process.hrtime.bigint();
    call('decide', input);
    samples.push(Number(process.hrtime.bigint() - t) / 1e3);
  }
  return { decide_median_us: round(median(samples)), decide_p99_us: round([...samples].sort((a, b) => a - b)[Math.floor(samples.length * 0.99)]) };
}

const gh = await startFakeGitHub({ scenario: 'ready' });
const work = mkdtempSync(join(tmpdir(), 'deferral-bench-'));
const outFile = join(work, 'output');
const env = {
  PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_API_URL: gh.url, GITHUB_REPOSITORY: 'bench/bench',
  GITHUB_WORKFLOW_REF: 'bench/bench/.github/workflows/b.yml@refs/heads/main', GITHUB_JOB: 'b',
  GITHUB_OUTPUT: outFile, GITHUB_STEP_SUMMARY: join(work, 'summary'), RUNNER_TEMP: work, INPUT_TOKEN: TEST_TOKEN,
};
writeFileSync(outFile, '');
const floorEntry = join(work, 'floor.mjs');
writeFileSync(floorEntry, FLOOR);
writeFileSync(env.GITHUB_STEP_SUMMARY, '');

let conventional = null;
try {
  conventional = installConventional();
} catch (err) {
  conventional = { error: `npm install failed: ${err.message.split('\n')[0]}` };
}

// Interleave the four so that drift in machine load hits them alike.
const times = { bare: [], floor: [], gate: [], conventional: [] };
for (let i = 0; i < 3; i++) await timeProcess(['-e', '0'], env); // warm the file cache
for (let i = 0; i < RUNS; i++) {
  times.bare.push(await timeProcess(['-e', '0'], env));
  times.floor.push(await timeProcess([floorEntry], env));
  times.gate.push(await timeProcess([join(root, 'dist/main.js')], env));
  if (conventional?.entry) times.conventional.push(await timeProcess([conventional.entry], env));
}
const requests = gh.requests.length;
await gh.close();

const distBytes = dirBytes(join(root, 'dist'));
const bare = median(times.bare);
const floor = median(times.floor);
const gate = median(times.gate);
const result = {
  command: 'node bench/action/run.mjs',
  node: process.version,
  runs: RUNS,
  bare_node_ms: round(bare),
  gate_ms: round(gate),
  gate_over_bare: round(gate / bare, 2),
  gate_goal_met: gate / bare <= 1.5,
  floor_ms: round(floor),
  floor_over_bare: round(floor / bare, 2),
  gate_over_floor: round(gate / floor, 2),
  requests_per_gate_run: (requests - RUNS) / (RUNS * (conventional?.entry ? 2 : 1)),
  conventional_ms: conventional?.entry ? round(median(times.conventional)) : null,
  conventional_over_bare: conventional?.entry ? round(median(times.conventional) / bare, 2) : null,
  conventional_node_modules_bytes: conventional?.bytes ?? null,
  conventional_error: conventional?.error ?? null,
  dist_bytes: distBytes,
  dist_goal_met: distBytes <= 400 * 1024,
  ...(await decisionLatency()),
};
console.log(JSON.stringify(result));
