#!/usr/bin/env node
// The main job, end to end on one machine: an Action run defers before its work, the durable
// host records the receipt on an embedded SQLite store, wakes when it is due, launches a fresh
// process, and that process's resume preflight lets the work proceed. Each step prints one line.
// Exits non-zero if any step does not behave as described. Usage: npm run demo
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const TOKEN = 'demo-token-not-real';
const RESET_IN_SECONDS = 4;
const work = mkdtempSync(join(tmpdir(), 'deferral-demo-'));
const host = join(root, 'target', 'debug', 'deferral-host');
const store = `sqlite:${join(work, 'host.db')}`;
let standIn;
let stepNo = 0;

const say = (what, how) => console.log(`${String(++stepNo).padStart(2)}. ${what}${how ? `  [${how}]` : ''}`);
class DemoFailure extends Error {}
const expect = (ok, message) => { if (!ok) throw new DemoFailure(message); };

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { encoding: 'utf8', ...options });
  if (result.error) throw new DemoFailure(`${cmd} could not start: ${result.error.message}`);
  return result;
}

function hostCmd(...args) {
  return run(host, ['--store', store, ...args]);
}

const indent = (text) => `${text.trimEnd().replace(/^/gm, '      ')}\n`;

function lastJson(text) {
  const line = text.trim().split('\n').filter((l) => l.startsWith('{')).at(-1);
  return line ? JSON.parse(line) : null;
}

function readOutputs(file) {
  // GITHUB_OUTPUT holds name<<DELIMITER / value / DELIMITER blocks.
  const out = {};
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([\w-]+)<<(.+)$/.exec(lines[i]);
    if (!m) continue;
    const value = [];
    for (i++; i < lines.length && lines[i] !== m[2]; i++) value.push(lines[i]);
    out[m[1]] = value.join('\n');
  }
  return out;
}

async function startStandIn() {
  standIn = spawn(process.execPath, [join(root, 'scripts/demo/github-stand-in.mjs'), String(RESET_IN_SECONDS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: standIn.stdout }).once('line', resolve);
    standIn.once('exit', () => reject(new DemoFailure('the GitHub stand-in exited early')));
  });
  return JSON.parse(line);
}

async function main() {
  say('building deferral-host (debug build, once)', 'cargo build -p deferral-host');
  const build = run('cargo', ['build', '--quiet', '-p', 'deferral-host'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  expect(build.status === 0 && existsSync(host), 'cargo build -p deferral-host failed');

  const { port, reset } = await startStandIn();
  const api = `http://127.0.0.1:${port}`;
  say(`GitHub stand-in on ${api}: REST has 3 of 5000 left until it resets in ${RESET_IN_SECONDS}s`, 'scripts/demo/github-stand-in.mjs');

  // What a runner gives an Action step: inputs as INPUT_* variables and files for results.
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GITHUB_API_URL: api,
    GITHUB_REPOSITORY: 'octo-demo/hello-world',
    GITHUB_WORKFLOW_REF: 'octo-demo/hello-world/.github/workflows/labels.yml@refs/heads/main',
    GITHUB_JOB: 'relabel',
    RUNNER_TEMP: work,
    GITHUB_OUTPUT: join(work, 'output.txt'),
    GITHUB_STEP_SUMMARY: join(work, 'summary.md'),
    'INPUT_TOKEN': TOKEN,
    'INPUT_REST-RESERVE': '10%',
    'INPUT_RESUME-BUFFER': '1s',
    'INPUT_RESUME-JITTER': '0s',
    'INPUT_FRESH-APPROVAL': 'never',
  };
  for (const f of [env.GITHUB_OUTPUT, env.GITHUB_STEP_SUMMARY]) writeFileSync(f, '');
  const action = run(process.execPath, [join(root, 'dist/main.js')], { env });
  const outputs = readOutputs(env.GITHUB_OUTPUT);
  expect(outputs.status === 'deferred', `the Action should defer, it said status=${outputs.status}: ${action.stdout}${action.stderr}`);
  expect(action.status !== 0, 'with on-deferral: fail the step must fail so no later step mutates');
  expect(!readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8').includes(TOKEN), 'the summary must not contain the token');
  say(`the Action stopped before the work: status=deferred, reason=${outputs.reason}, resume-after=${outputs['resume-after']} (step failed on purpose)`, 'node dist/main.js');
  const receiptPath = outputs['receipt-path'];
  expect(receiptPath && existsSync(receiptPath), 'the receipt file should exist under RUNNER_TEMP');
  say(`the receipt was written to ${receiptPath} and holds no token or repository name`, 'outputs.receipt-path');
  const receiptText = readFileSync(receiptPath, 'utf8');
  expect(!receiptText.includes(TOKEN) && !receiptText.includes('hello-world'), 'the receipt leaks a secret or a name');

  // The fresh process the host launches: same scope and policy, token from a private file.
  const tokenFile = join(work, 'token');
  writeFileSync(tokenFile, TOKEN, { mode: 0o600 });
  const resumeScript = join(work, 'resume.sh');
  writeFileSync(resumeScript, `#!/bin/sh
# Launched by deferral-host with the receipt on stdin; runs the fresh resume preflight first.
set -eu
export GITHUB_API_URL='${api}' GITHUB_REPOSITORY='${env.GITHUB_REPOSITORY}'
export GITHUB_WORKFLOW_REF='${env.GITHUB_WORKFLOW_REF}' GITHUB_JOB='${env.GITHUB_JOB}'
GITHUB_TOKEN="$(cat '${tokenFile}')"; export GITHUB_TOKEN
'${process.execPath}' '${join(root, 'dist/cli.js')}' resume --receipt - --rest-reserve 10% \\
  --resume-buffer 1s --resume-jitter 0s --fresh-approval never > '${join(work, 'resume-output.json')}' || exit $?
echo "the work would run here" > '${join(work, 'work-done.txt')}'
`);
  chmodSync(resumeScript, 0o700);

  const record = hostCmd('record', '--launch', `exec:${resumeScript}`, receiptPath);
  expect(record.status === 0, `deferral-host record failed: ${record.stdout}${record.stderr}`);
  const recorded = lastJson(record.stdout);
  expect(recorded?.receipt?.ownership?.disposition === 'retained', 'record should return a retained receipt');
  say(`deferral-host recorded it as ${recorded.id}: ownership retained, cancellation handle shown once`, 'deferral-host record --launch exec:resume.sh');

  const status = hostCmd('status');
  expect(status.status === 0 && status.stdout.includes('deferred'), `status should list the deferral as deferred: ${status.stdout}`);
  say('deferral-host status:', 'deferral-host status');
  process.stdout.write(indent(status.stdout));

  // A scheduler (cron, systemd timer) would call tick; here we call it once a second.
  const deadline = Date.now() + 90_000;
  let state = 'deferred';
  let ticks = 0;
  while (Date.now() < deadline) {
    const tick = hostCmd('tick');
    ticks += 1;
    expect(tick.status === 0, `deferral-host tick failed: ${tick.stdout}${tick.stderr}`);
    const show = lastJson(hostCmd('status', '--json', recorded.id).stdout);
    state = (Array.isArray(show) ? show[0] : show?.deferrals?.[0] ?? show)?.state ?? state;
    if (state !== 'deferred') break;
    if (ticks === 1) say(`tick: not due yet (the stand-in resets at ${new Date(reset * 1000).toISOString()}), nothing launched`, 'deferral-host tick');
    await new Promise((r) => setTimeout(r, 1000));
  }
  say(`tick launched the fresh process once due, after ${ticks} tick(s)`, 'deferral-host tick');
  const resumeOut = existsSync(join(work, 'resume-output.json')) ? lastJson(readFileSync(join(work, 'resume-output.json'), 'utf8')) : null;
  expect(resumeOut?.status === 'ready', `the resume preflight should say ready, it said ${JSON.stringify(resumeOut)}`);
  say(`the fresh process ran the resume preflight against the healthy stand-in: status=ready, REST remaining ${resumeOut.rest?.remaining ?? resumeOut.restRemaining ?? '?'}`, 'deferral resume --receipt -');
  expect(existsSync(join(work, 'work-done.txt')), 'the work after the preflight did not run');
  expect(state === 'complete', `the deferral should be complete, it is ${state}`);
  const final = hostCmd('status');
  say('deferral-host status: the deferral is complete', 'deferral-host status');
  process.stdout.write(indent(final.stdout));
}

main().then(
  () => { console.log('demo: the whole loop behaved as described'); },
  (err) => {
    console.error(`demo FAILED at step ${stepNo + 1}: ${err.message}`);
    process.exitCode = 1;
  },
).finally(() => {
  standIn?.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
});
