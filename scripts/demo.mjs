#!/usr/bin/env node
// The main job, told as a story a stranger can follow: a nightly job is about to make 200 label
// writes with 120 requests left. The gate (the Action, as a runner starts it) stops before the
// first write and leaves a receipt; deferral-host records it on an embedded SQLite store, wakes
// when it is due and launches a fresh process; that process runs the resume preflight, then does
// the 200 writes against a loopback stand-in for GitHub. A second act plays the same loop with
// GitHub Actions as the runner (scripts/demo/act-two.mjs); a third drains a backlog of jobs behind
// one quota in waves (scripts/demo/act-three.mjs). Each step prints one numbered line;
// the demo exits non-zero if any step does not behave as it says.
// Usage: npm run demo [-- --keep]   (--keep leaves the demo's files in place and says where)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { runAction } from './demo/runner.mjs';
import { actTwo } from './demo/act-two.mjs';
import { actThree } from './demo/act-three.mjs';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const keep = process.argv.includes('--keep');
const TOKEN = 'demo-token-not-real';
const LIMIT = 5000;
const LEFT = 120;
const WRITES = 200;
const RESET_IN_SECONDS = 6;
const work = mkdtempSync(join(tmpdir(), 'deferral-demo-'));
const host = join(process.env.CARGO_TARGET_DIR ?? join(root, 'target'), 'debug', 'deferral-host');
const store = `sqlite:${join(work, 'host.db')}`;
let standIn;
const children = [];
let stepNo = 0;

const WIDTH = 100;
// Wraps a paragraph at WIDTH columns, continuation lines indented under the first.
function wrap(text, indent) {
  const lines = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > WIDTH - indent) { lines.push(line); line = word; } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}
const say = (text) => console.log(`${String(++stepNo).padStart(2)}. ${wrap(text, 4)}`);
const more = (text) => console.log(text.trimEnd().replace(/^/gm, '      '));
class DemoFailure extends Error {}
const expect = (ok, message) => { if (!ok) throw new DemoFailure(message); };

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { encoding: 'utf8', ...options });
  if (result.error) throw new DemoFailure(`${cmd} could not start: ${result.error.message}`);
  return result;
}

const hostCmd = (...args) => run(host, ['--store', store, ...args]);
const cli = (...args) => run(process.execPath, [join(root, 'dist/cli.js'), ...args]);

function lastJson(text) {
  const line = text.trim().split('\n').filter((l) => l.startsWith('{')).at(-1);
  return line ? JSON.parse(line) : null;
}

async function startStandIn() {
  const script = join(root, 'scripts/demo/github-stand-in.mjs');
  standIn = spawn(process.execPath, [script, String(RESET_IN_SECONDS), String(LEFT)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: standIn.stdout }).once('line', resolve);
    standIn.once('exit', () => reject(new DemoFailure('the GitHub stand-in exited early')));
  });
  return JSON.parse(line);
}

const stats = async (api) => (await fetch(`${api}/_stand-in/stats`)).json();
const seconds = (ms) => `${Math.max(0, Math.round(ms / 1000))} s`;

// Runs cargo build and shows one line for it: on a terminal the line counts the crates as they
// compile, elsewhere it is printed once at the end. Cargo's own output is shown only on failure.
async function build() {
  say('Building deferral-host, the durable host (cargo build -p deferral-host). The first build compiles'
    + ' about 160 crates: 2 to 3 minutes on an idle 2-core machine (140 CPU-seconds), longer on a busy one;'
    + ' later runs take a second.');
  const started = Date.now();
  const tty = process.stdout.isTTY;
  const output = [];
  let compiled = 0;
  const line = (text) => (tty ? process.stdout.write(`\r\x1b[2K      ${text}`) : undefined);
  const cargo = spawn('cargo', ['build', '-p', 'deferral-host'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CARGO_TERM_COLOR: 'never' } });
  cargo.stdout.on('data', (chunk) => output.push(chunk));
  createInterface({ input: cargo.stderr }).on('line', (text) => {
    output.push(`${text}\n`);
    const crate = /^\s*Compiling (\S+)/.exec(text);
    if (crate) line(`compiling: ${++compiled} crates so far (${crate[1]})`);
  });
  const status = await new Promise((resolve, reject) => {
    cargo.once('error', (err) => reject(new DemoFailure(`cargo could not start: ${err.message}`)));
    cargo.once('close', resolve);
  });
  if (tty) process.stdout.write('\r\x1b[2K');
  if (status !== 0 || !existsSync(host)) {
    process.stdout.write(output.join(''));
    throw new DemoFailure(`cargo build -p deferral-host failed (exit ${status}; its output is above)`);
  }
  const took = ((Date.now() - started) / 1000).toFixed(1);
  more(compiled ? `built in ${took} s (${compiled} crates compiled).` : `up to date (${took} s).`);
}

async function main() {
  console.log(`The story: a nightly job is about to add a label to ${WRITES} issues, one REST write each. Its token
has ${LEFT} requests left this hour. Run blindly, it would fail at write ${LEFT + 1} and leave the batch
half-labelled. Deferral stops it before the first write and finishes it later in a fresh process.
`);
  await build();

  const { port, reset } = await startStandIn();
  const api = `http://127.0.0.1:${port}`;
  say(`A stand-in for GitHub listens on ${api} (loopback, no real GitHub): REST quota ${LIMIT}/h,`
    + ` ${LEFT} left, resetting in ${RESET_IN_SECONDS} s (on GitHub a reset can be up to an hour away).`);

  const plan = JSON.stringify({ rest: [{ method: 'POST', route: '/repos/{owner}/{repo}/issues/{issue_number}/labels', count: WRITES }] });
  const scope = '{"work":"nightly-labels"}';
  // The step's runner environment; runAction adds RUNNER_TEMP and the output files.
  const github = {
    GITHUB_API_URL: api,
    GITHUB_REPOSITORY: 'octo-demo/hello-world',
    GITHUB_WORKFLOW_REF: 'octo-demo/hello-world/.github/workflows/labels.yml@refs/heads/main',
    GITHUB_JOB: 'relabel',
  };
  const inputs = { token: TOKEN, plan, scope, 'rest-reserve': '10%', 'resume-buffer': '1s', 'resume-jitter': '0s' };
  say(`The job's first step is the Deferral Action (node dist/main.js, as a runner starts it) with a plan of`
    + ` ${WRITES} POSTs to .../issues/{n}/labels. It makes one request, GET /rate_limit, which costs no quota.`);
  const action = await runAction(root, { github, inputs, workDir: work });
  const { outputs } = action;
  expect(outputs.status === 'deferred', `the Action should defer, it said status=${outputs.status}: ${action.stdout}${action.stderr}`);
  expect(outputs['rest-remaining'] === String(LEFT), `the Action should see ${LEFT} left, it saw ${outputs['rest-remaining']}`);
  expect(action.status !== 0, 'with on-deferral: fail the step must fail so no later step mutates');
  expect(!action.summary.includes(TOKEN), 'the summary must not contain the token');
  const reserve = LIMIT / 10;
  say(`It stopped before the first write: ${LEFT} left - ${WRITES} planned = ${LEFT - WRITES}, below the reserve of ${reserve}`
    + ` (rest-reserve: 10% of the limit, which the gate never spends so other jobs keep working).`
    + ` status=deferred, reason=${outputs.reason}. With on-deferral: fail (the default) it ends the job here,`
    + ' so no later step can write by accident.');
  expect((await stats(api)).labelWrites === 0, 'no label may be written before the resume');

  const receiptPath = outputs['receipt-path'];
  expect(receiptPath && existsSync(receiptPath), 'the receipt file should exist under RUNNER_TEMP');
  const receiptText = readFileSync(receiptPath, 'utf8');
  expect(!receiptText.includes(TOKEN) && !receiptText.includes('hello-world'), 'the receipt leaks a secret or a name');
  const explain = cli('explain', '--text', receiptPath);
  expect(explain.status === 0, `deferral explain failed: ${explain.stdout}${explain.stderr}`);
  say(`It left a receipt (output receipt-path, ${receiptText.length} bytes; a workflow uploads it as an artifact).`
    + ' It holds reasons, times and SHA-256 digests that bind it to this scope, request and plan: no token,'
    + ' no repository name. deferral explain --text reads it:');
  // The explanation rides in the one JSON line on stdout (and, with --text, as lines on stderr).
  more(lastJson(explain.stdout)?.explanation ?? explain.stderr);

  // The fresh process the host launches: same scope, plan and policy; token from a private file.
  const tokenFile = join(work, 'token');
  writeFileSync(tokenFile, TOKEN, { mode: 0o600 });
  const resumeScript = join(work, 'resume-labels.sh');
  const resumeOut = join(work, 'resume-output.json');
  const workOut = join(work, 'work-output.json');
  writeFileSync(resumeScript, `#!/bin/sh
# Launched by deferral-host with the receipt on stdin: the resume preflight first, then the work.
set -eu
export GITHUB_API_URL='${api}' GITHUB_REPOSITORY='${github.GITHUB_REPOSITORY}'
GITHUB_TOKEN="$(cat '${tokenFile}')"; export GITHUB_TOKEN
'${process.execPath}' '${join(root, 'dist/cli.js')}' resume --receipt - --scope '${scope}' --plan '${plan}' \\
  --rest-reserve 10% --resume-buffer 1s --resume-jitter 0s --approval granted > '${resumeOut}' || exit $?
exec '${process.execPath}' '${join(root, 'scripts/demo/label-issues.mjs')}' ${WRITES} > '${workOut}'
`);
  chmodSync(resumeScript, 0o700);

  // Only init creates a store: record, serve and run refuse a missing one.
  const init = hostCmd('init');
  expect(init.status === 0, `deferral-host init failed: ${init.stdout}${init.stderr}`);
  const record = hostCmd('record', '--launch', `exec:${resumeScript}`, receiptPath);
  expect(record.status === 0, `deferral-host record failed: ${record.stdout}${record.stderr}`);
  const recorded = lastJson(record.stdout);
  expect(recorded?.receipt?.ownership?.disposition === 'retained', 'record should return a retained receipt');
  const handleFile = join(work, 'cancellation-handle');
  writeFileSync(handleFile, `${recorded.cancellation_handle}\n`, { mode: 0o600 });
  say(`deferral-host record stored it as deferral ${recorded.id} with a launch target, resume-labels.sh.`
    + ' "Ownership retained" means the host now owns the wake-up: it drew two random 256-bit handles and'
    + ' keeps only their SHA-256 (also written into the retained receipt).');
  say(`Where the handles went: the cancellation handle is printed once, by record; the demo saved it to a private`
    + ` file (${keep ? handleFile : 'cancellation-handle, mode 0600'}) and only it can cancel (deferral-host cancel ID --handle ...).`
    + ' The wake-up handle will reach only the launched process, in DEFERRAL_WAKEUP_HANDLE.');

  const status = hostCmd('status');
  expect(status.status === 0 && status.stdout.includes('deferred'), `status should list the deferral as deferred: ${status.stdout}`);
  say('deferral-host status shows it waiting, and when it is due:');
  more(status.stdout);

  // A scheduler (cron, a systemd timer, launchd) runs tick; here the demo runs it once a second.
  const dry = hostCmd('tick', '--dry-run');
  const dryReport = lastJson(dry.stdout);
  expect(dry.status === 0 && dryReport?.launched?.length === 0, `tick --dry-run should launch nothing yet: ${dry.stdout}`);
  expect(dryReport?.next?.id === recorded.id, `tick --dry-run should name the next wake-up: ${dry.stdout}`);
  say('Nothing sleeps in a process meanwhile: cron or a systemd timer runs deferral-host tick, which launches what'
    + ` is due and exits (the GitHub stand-in resets at ${new Date(reset * 1000).toISOString()}). Asked now, it says:`);
  more(dry.stderr);
  const deadline = Date.now() + 90_000;
  let state = 'deferred';
  let ticks = 0;
  let launched = null;
  let tickLog = '';
  while (Date.now() < deadline && state === 'deferred') {
    const tick = hostCmd('tick');
    ticks += 1;
    expect(tick.status === 0, `deferral-host tick failed: ${tick.stdout}${tick.stderr}`);
    const entry = lastJson(tick.stdout)?.launched?.[0];
    if (entry) { launched = entry; tickLog = tick.stderr; }
    state = lastJson(hostCmd('status', '--json', recorded.id).stdout)?.state ?? state;
    if (state === 'deferred') await new Promise((r) => setTimeout(r, 1000));
  }
  expect(launched, 'no tick launched the deferral within 90 s');
  say(`The demo ran tick once a second; tick ${ticks} found it due and woke it: it claimed the deferral (a`
    + ' compare-and-set, so two tickers never launch it twice) and started resume-labels.sh once, with the receipt'
    + ' on stdin. Its log on stderr:');
  more(tickLog);

  const preflight = existsSync(resumeOut) ? lastJson(readFileSync(resumeOut, 'utf8')) : null;
  expect(preflight?.status === 'ready', `the resume preflight should say ready, it said ${JSON.stringify(preflight)}`);
  const freshRemaining = preflight.rest?.remaining ?? preflight.restRemaining;
  expect(Number.isInteger(freshRemaining), `the preflight should report REST remaining: ${JSON.stringify(preflight)}`);
  say('In the fresh process the resume preflight ran before anything else: the receipt is valid and due; the'
    + ' wake-up handle proves the claim; scope, request and plan recomputed from the flags match the receipt\'s'
    + ' digests; the fresh approval the receipt asks for (fresh-approval: always, the default) is given by'
    + ` --approval granted; and a fresh GET /rate_limit shows ${freshRemaining} left. Verdict: ready.`);

  const done = existsSync(workOut) ? lastJson(readFileSync(workOut, 'utf8')) : null;
  const served = await stats(api);
  expect(done?.written === WRITES && served.labelWrites === WRITES, `the work should write ${WRITES} labels: ${JSON.stringify(done)} ${JSON.stringify(served)}`);
  expect(served.spentBeforeReset === 0, 'no write may happen before the reset');
  say(`Then the work ran: the stand-in received ${served.labelWrites} label writes, all after the reset; REST remaining is now ${done.remaining}.`);

  expect(state === 'complete', `the deferral should be complete, it is ${state}`);
  const final = hostCmd('status');
  say('deferral-host status: complete, after 1 of at most 2 re-entries (fresh-process launches).');
  more(final.stdout);
  say(`What this saved: sleeping in-process until the reset would have held a billed runner for up to an hour`
    + ` (often past the job timeout); failing half-way would have labelled ${LEFT} issues and left ${WRITES - LEFT} undone.`
    + ` Here nothing was written until the quota was back, then all ${WRITES} in one fresh run.`);

  await actTwo({ root, work, host, say, more, expect, children, scenario: { left: LEFT, writes: WRITES, plan, scope } });
  await actThree({ root, work, host, say, more, expect, children });
}

main().then(
  () => { console.log('\ndemo: every step behaved as described'); },
  (err) => {
    console.error(`demo FAILED at step ${stepNo + 1}: ${err.message}`);
    process.exitCode = 1;
  },
).finally(() => {
  standIn?.kill('SIGTERM');
  for (const child of children) child.kill('SIGTERM');
  if (keep) console.log(`(--keep: the demo's files are in ${work})`);
  else rmSync(work, { recursive: true, force: true });
});
