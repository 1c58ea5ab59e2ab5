// The demo's third act: a backlog behind one quota. Six jobs of 20 writes each share one
// installation's window of 45 requests (reserve 5, so 2 jobs fit a window). Every gate (the real
// CLI, dist/cli.js gate) defers to the same reset; deferral-host records each gate's JSON line in
// one pool, and tick admits only what fits each window: the backlog drains in waves, every job
// launched once, none refused half-way. Stand-in: scripts/demo/quota-stand-in.mjs.
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostRunner, startStandIn } from './processes.mjs';

// Windows far longer than a wave (2 jobs launched one after the other): a job's writes never
// straddle a reset, so each window's count is exact and the act's checks are strict.
const JOBS = 6;
const COST = 20;
const LIMIT = 45;
const RESERVE = 5;
const FIRST_S = 10;
const WINDOW_S = 10;
const POOL = 'app-42';
const TOKEN = 'installation-token-not-real';
const REPO = 'octo-demo/hello-world';

export async function actThree({ root, work, host, say, more, expect, children }) {
  const { port, firstReset } = await startStandIn(join(root, 'scripts/demo/quota-stand-in.mjs'),
    [String(LIMIT), String(FIRST_S), String(WINDOW_S)], children, 'quota stand-in');
  const api = `http://127.0.0.1:${port}`;
  const stats = async () => (await fetch(`${api}/_stand-in/stats`)).json();
  const store = `sqlite:${join(work, 'host-backlog.db')}`;
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_API_URL: api, GITHUB_REPOSITORY: REPO };
  const hostCmd = hostRunner(host, store, env);
  const plan = JSON.stringify({ rest: [{ method: 'POST', route: '/repos/{owner}/{repo}/issues/{issue_number}/labels', count: COST }] });
  const policy = ['--plan', plan, '--rest-reserve', String(RESERVE), '--resume-buffer', '1s', '--resume-jitter', '0s'];
  const scope = (job) => JSON.stringify({ work: 'nightly-sync', job });

  console.log(`\nAct 3: a backlog behind one quota. ${JOBS} jobs of ${COST} writes share one GitHub App installation's
window of ${LIMIT} requests (a stand-in on loopback; windows of ${WINDOW_S} s instead of an hour). Woken all at
the reset, as a scheduler of the clock would, ${LIMIT - RESERVE} requests above the reserve fit ${Math.floor((LIMIT - RESERVE) / COST)} jobs and the rest would
defer again and spend their re-entries. The host schedules against the quota instead.
`);
  const tokenFile = join(work, 'installation-token');
  writeFileSync(tokenFile, TOKEN, { mode: 0o600 });
  const gates = await Promise.all(Array.from({ length: JOBS }, (_, i) => new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'dist/cli.js'), 'gate', '--scope', scope(i + 1), ...policy, '--quiet'],
      { env: { ...env, GITHUB_TOKEN: TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.on('close', (code) => resolve({ code, line: out.trim().split('\n').at(-1) }));
  })));
  const deferred = gates.filter((g) => g.code === 6 && JSON.parse(g.line).status === 'deferred');
  expect(deferred.length === JOBS, `every gate should defer (exit 6): ${gates.map((g) => g.code).join(',')} ${gates[0].line}`);
  say(`${JOBS} jobs start their gate (deferral gate, the CLI, one GET /rate_limit each): the window is spent, so`
    + ` each defers to its reset at ${new Date(firstReset * 1000).toISOString()}, exit 6. Each gate's whole JSON line`
    + ` carries the receipt and, beside it, the plan's cost (${COST} REST) and the rate state it saw.`);

  expect(hostCmd('init').status === 0, 'deferral-host init should create the backlog store');
  const ids = [];
  for (const [i, gate] of gates.entries()) {
    const job = i + 1;
    const lineFile = join(work, `gate-${job}.json`);
    writeFileSync(lineFile, `${gate.line}\n`);
    const script = join(work, `sync-${job}.sh`);
    writeFileSync(script, `#!/bin/sh
# Job ${job}: the resume preflight, then its ${COST} writes; the preflight's line is printed last, so the
# host learns from it what the pool has left.
set -u
export GITHUB_API_URL='${api}' GITHUB_REPOSITORY='${REPO}'
GITHUB_TOKEN="$(cat '${tokenFile}')"; export GITHUB_TOKEN
out='${join(work, `resume-${job}.json`)}'
'${process.execPath}' '${join(root, 'dist/cli.js')}' resume --receipt - --scope '${scope(job)}' --plan '${plan}' \\
  --rest-reserve ${RESERVE} --resume-buffer 1s --resume-jitter 0s --approval granted --quiet > "$out"
rc=$?
if [ $rc -eq 0 ]; then
  '${process.execPath}' '${join(root, 'scripts/demo/label-issues.mjs')}' ${COST} > '${join(work, `writes-${job}.json`)}' || rc=1
fi
cat "$out"
exit $rc
`);
    chmodSync(script, 0o700);
    const recorded = hostCmd('record', '--pool', POOL, '--launch', `exec:${script}`, lineFile);
    expect(recorded.status === 0 && recorded.json?.id, `record of job ${job} failed: ${recorded.stdout}${recorded.stderr}`);
    ids.push(recorded.json.id);
  }
  say(`deferral-host record --pool ${POOL} --launch exec:sync-N.sh gate-N.json, once per job: ${JOBS} deferrals in the`
    + ` pool ${POOL}, each with its cost. The pool learned the window from the gates' lines.`);

  const deadline = Date.now() + 120_000;
  const waves = [];
  let heldShown = false;
  let live = JOBS;
  while (Date.now() < deadline && live > 0) {
    const tick = hostCmd('tick', '--pool-buffer', '500ms', '--pool-jitter', '300ms');
    expect(tick.status === 0, `tick failed: ${tick.stdout}${tick.stderr}`);
    const launched = tick.json?.launched?.length ?? 0;
    if (launched) {
      // A wave is what one window admitted (a window's jobs may come due over several ticks).
      const window = (await stats()).current;
      if (waves.at(-1)?.window === window) waves.at(-1).launched += launched;
      else waves.push({ window, launched });
    }
    const rows = hostCmd('status', '--json').json?.deferrals ?? [];
    live = rows.filter((d) => ['deferred', 'resumable'].includes(d.state)).length;
    // Shown at the first tick after a wave: its reports taught the pool, this tick held the rest.
    if (!heldShown && waves.length && !launched && tick.json?.held?.length) {
      heldShown = true;
      const page = join(work, 'backlog.html');
      expect(hostCmd('status', '--html', page).status === 0, 'status --html should write the page');
      const html = readFileSync(page, 'utf8');
      expect(/held/i.test(html) && html.includes(POOL), 'the status page should show the held jobs and their pool');
      say(`The first tick after the reset admitted ${waves[0].launched} (the cost that fits above the reserve) and launched them,`
        + ' one fresh process each; their resume lines taught the pool what is left. The others are held: not claimed, no'
        + ' re-entry spent, nothing started, due again at the pool\'s next reset. deferral-host status --pools and'
        + ' tick --dry-run say so, and the status page (status --html backlog.html) lists them under "Held by their pool":');
      more(hostCmd('status', '--pools').stdout);
      more(hostCmd('tick', '--dry-run', '--pool-buffer', '500ms', '--pool-jitter', '300ms').stderr);
    }
    if (live > 0) await new Promise((r) => setTimeout(r, 500));
  }
  const rows = (hostCmd('status', '--json').json?.deferrals ?? []).filter((d) => ids.includes(d.id));
  const complete = rows.filter((d) => d.state === 'complete').length;
  const launches = waves.reduce((n, w) => n + w.launched, 0);
  const served = await stats();
  const windows = served.windows.filter((w) => w.spent > 0).length;
  const minimum = Math.ceil(JOBS / Math.floor((LIMIT - RESERVE) / COST));
  expect(complete === JOBS, `every job should complete: ${rows.map((d) => `${d.id} ${d.state} ${d.cause ?? ''}`).join('; ')}`);
  expect(launches === JOBS, `each job should be launched once: ${launches} launches for ${JOBS} jobs`);
  expect(served.refused === 0, `no write may be refused half-way: ${served.refused} refused`);
  expect(served.windows.every((w) => w.spent <= LIMIT - RESERVE), `no window may be spent below the reserve: ${JSON.stringify(served.windows)}`);
  expect(windows <= Math.floor(1.1 * minimum) + 1, `the backlog should drain in at most ${Math.floor(1.1 * minimum) + 1} windows, it took ${windows}`);
  say(`The backlog drained in waves: ${waves.map((w) => w.launched).join(' + ')} launches over ${windows} windows`
    + ` (the fewest possible is ${minimum}); ${complete} of ${JOBS} complete, ${launches} launches for ${JOBS} jobs, no write`
    + ` refused, each window spent at most ${LIMIT - RESERVE} of ${LIMIT}. Woken at the clock instead, the same backlog`
    + ' launches most jobs twice and blocks some (bench/host/pools.sh measures both side by side).');
  more(hostCmd('status', '--pools').stdout);
}
