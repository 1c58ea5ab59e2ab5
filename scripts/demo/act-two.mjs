// The demo's second act: the same loop with GitHub Actions as the runner, against a loopback
// stand-in (scripts/demo/github-actions-stand-in.mjs). A scheduled run defers and uploads its
// receipt as an artifact; deferral-host watch ingests it once; tick dispatches the workflow
// when it is due and follows the run it started to its end.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostRunner, startStandIn } from './processes.mjs';

const REPO = 'octo-demo/hello-world';
const WORKFLOW = 'labels.yml';
const HOST_TOKEN = 'host-token-not-real';

export async function actTwo({ root, work, host, say, more, expect, scenario, children }) {
  const { left, writes, plan, scope } = scenario;
  const resetInSeconds = 6;
  const config = join(work, 'actions-stand-in.json');
  writeFileSync(config, JSON.stringify({
    root, repo: REPO, workflow: WORKFLOW, workflowToken: 'workflow-token-not-real', left, resetInSeconds, writes, workDir: work,
    github: { GITHUB_REPOSITORY: REPO, GITHUB_WORKFLOW_REF: `${REPO}/.github/workflows/${WORKFLOW}@refs/heads/main`, GITHUB_JOB: 'relabel' },
    inputs: { plan, scope, 'rest-reserve': '10%', 'resume-buffer': '1s', 'resume-jitter': '0s' },
  }));
  const { api, reset } = await startStandIn(join(root, 'scripts/demo/github-actions-stand-in.mjs'), [config], children, 'GitHub Actions stand-in');
  const control = async (path, method = 'GET') => (await fetch(`${api}/_stand-in/${path}`, { method })).json();
  const store = `sqlite:${join(work, 'host-actions.db')}`;
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_TOKEN: HOST_TOKEN, GITHUB_API_URL: api };
  const hostCmd = hostRunner(host, store, env);

  console.log(`\nAct 2: the same job as a GitHub Actions workflow, with deferral-host as the scheduler that
consumes the receipt artifact. GitHub is again a stand-in on loopback (API and blob storage).
`);
  say(`A stand-in for GitHub Actions serves ${REPO} with the workflow ${WORKFLOW}: its job runs the Deferral`
    + ` Action (on-deferral: succeed), uploads the receipt as the artifact deferred-receipt when it defers,`
    + ` and labels ${writes} issues when it may. The workflow's token has ${left} requests left until a reset`
    + ` in ${resetInSeconds} s; deferral-host calls GitHub with a token of its own.`);
  const scheduled = await control('schedule', 'POST');
  let stats = await control('stats');
  expect(stats.runs[0]?.gate === 'deferred' && stats.artifacts.length === 1, `the scheduled run should defer and upload its receipt: ${JSON.stringify(stats)}`);
  say(`The nightly schedule fires: run ${scheduled.id} gates, defers before any write (conclusion ${scheduled.conclusion},`
    + ` since on-deferral: succeed), and uploads the artifact deferred-receipt (id ${stats.artifacts[0].id}).`);

  const init = hostCmd('init');
  expect(init.status === 0, `deferral-host init should create the store: ${init.stdout}${init.stderr}`);
  say('deferral-host init creates this act\'s store once (host-actions.db). Every command but init (record,'
    + ' serve and run too) refuses a store that does not exist (store-not-found), so a typo in --store cannot start an empty one.');

  const watchArgs = ['watch', REPO, '--workflow', WORKFLOW, '--launch', `workflow-dispatch:${REPO}/${WORKFLOW}@main`];
  const watched = hostCmd(...watchArgs);
  expect(watched.status === 0 && watched.json?.ingested?.length === 1, `watch should ingest the artifact: ${watched.stdout}${watched.stderr}`);
  const id = watched.json.ingested[0].id;
  stats = await control('stats');
  expect(stats.blobRequests === 1 && stats.blobRequestsWithToken === 0, `the artifact download should reach blob storage without the token: ${JSON.stringify(stats)}`);
  const again = hostCmd(...watchArgs);
  expect(again.status === 0 && again.json?.ingested?.length === 0, `a second watch should ingest nothing: ${again.stdout}`);
  say(`deferral-host watch ${REPO} --workflow ${WORKFLOW} --launch workflow-dispatch:${REPO}/${WORKFLOW}@main (from cron)`
    + ` listed the artifacts, checked that the run is this repository's own (not a fork's) ${WORKFLOW} run on the default branch, downloaded the new one (GitHub's 302 to blob storage, followed without the token), and recorded`
    + ` it as deferral ${id}. Run again, it ingests nothing: the artifact id and the receipt's digest are recorded once.`);
  more(hostCmd('status').stdout);

  const deadline = Date.now() + 90_000;
  let state = 'deferred';
  let dispatchLog = '';
  let followLog = '';
  while (Date.now() < deadline && state !== 'complete' && state !== 'blocked' && state !== 'cancelled') {
    const tick = hostCmd('tick');
    expect(tick.status === 0, `tick failed: ${tick.stdout}${tick.stderr}`);
    if (tick.json?.launched?.length) dispatchLog = tick.stderr;
    state = hostCmd('status', '--json', id).json?.state ?? state;
    if (state === 'complete' || state === 'blocked') followLog = tick.stderr;
    else await new Promise((r) => setTimeout(r, 1000));
  }
  stats = await control('stats');
  const dispatched = stats.runs.find((r) => r.event === 'workflow_dispatch');
  expect(dispatched && stats.dispatches.length === 1, `tick should dispatch the workflow once: ${JSON.stringify(stats)}`);
  expect(stats.dispatches[0].inputs.join(',') === 'attempt,deferral_id,receipt' && stats.dispatches[0].return_run_details,
    `the dispatch carries only the deferral id, attempt and receipt: ${JSON.stringify(stats.dispatches[0])}`);
  say(`Once due (the reset was at ${new Date(reset * 1000).toISOString()}), a tick dispatched ${WORKFLOW} with only three`
    + ` inputs (deferral_id, attempt, the receipt in its handoff form) and return_run_details, so GitHub named the run:`
    + ` ${dispatched.id}. Its log:`);
  more(dispatchLog);
  expect(dispatched.gate === 'ready' && dispatched.conclusion === 'success', `the dispatched run should resume and succeed: ${JSON.stringify(dispatched)}`);
  expect(stats.labelWrites === writes && stats.writesBeforeReset === 0, `the run should write ${writes} labels after the reset: ${JSON.stringify(stats)}`);
  say(`Run ${dispatched.id} resumed with the receipt input: its preflight said ${dispatched.gate}, it labelled`
    + ` ${stats.labelWrites} issues (none before the reset) and ended ${dispatched.conclusion}.`);
  expect(state === 'complete', `the deferral should be complete, it is ${state}: ${followLog}`);
  expect(followLog.includes(`run ${dispatched.id} success: complete`), `the following tick should say what the run did: ${followLog}`);
  say('A later tick followed that run: completed, success, no new deferred-receipt artifact, so the deferral'
    + ' is complete (a run that deferred again would have left a new receipt, recorded as the next wake-up).'
    + ' Its log:');
  more(followLog);
  more(hostCmd('status').stdout);
}
