// The demo's second act: a loopback stand-in for GitHub Actions, in the documented shapes.
// One repository with one workflow; its runs execute the real Action (dist/main.js) as their
// gate step, then the work (scripts/demo/label-issues.mjs) when the gate says ready. A run that
// defers uploads its receipt as the artifact `deferred-receipt`, downloaded through a 302 to a
// second loopback host (blob storage), as GitHub does.
//   GET  /rate_limit, POST /repos/{o}/{r}/issues/{n}/labels
//   GET  /repos/{o}/{r}/actions/artifacts?name=  (ETag, 304)  GET .../artifacts/{id}/zip (302)
//   POST /repos/{o}/{r}/actions/workflows/{wf}/dispatches (return_run_details: 200 with the run)
//   GET  /repos/{o}/{r}/actions/workflows/{wf}/runs  GET .../runs/{id}  GET .../runs/{id}/artifacts
//   GET  /repos/{o}/{r} (its default branch)  GET /repos/{o}/{r}/actions/runs (ETag, 304)
// Two quota buckets by token: the workflow's token is nearly spent until the reset, the host's
// own token is not. Control: POST /_stand-in/schedule (the nightly schedule fires: a run
// starts), GET /_stand-in/stats.
// Usage: node github-actions-stand-in.mjs CONFIG.json   (prints {"api","blob","reset"} when ready)
import http from 'node:http';
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { runAction } from './runner.mjs';
import { zip } from './zip.mjs';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { root, repo, workflow, workflowToken, left, resetInSeconds, writes } = config;
const LIMIT = 5000;
const started = Math.floor(Date.now() / 1000);
const reset = started + resetInSeconds;
const runs = [];
const artifacts = [];
const stats = { dispatches: [], blobRequests: 0, blobRequestsWithToken: 0, labelWrites: 0, writesBeforeReset: 0 };
let nextRun = 9001;
let nextArtifact = 501;
let spent = 0;
let api;
let blob;

function bucket(req) {
  const now = Math.floor(Date.now() / 1000);
  if (req.headers.authorization === `Bearer ${workflowToken}` && now < reset) {
    return { limit: LIMIT, used: LIMIT - left, remaining: left, reset };
  }
  const used = (req.headers.authorization === `Bearer ${workflowToken}` ? spent : 10);
  return { limit: LIMIT, used, remaining: LIMIT - used, reset: now < reset ? reset : reset + 3600 };
}

function send(req, res, status, body, extra = {}) {
  const window = bucket(req);
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    date: new Date().toUTCString(),
    'x-ratelimit-limit': String(window.limit),
    'x-ratelimit-remaining': String(window.remaining),
    'x-ratelimit-used': String(window.used),
    'x-ratelimit-reset': String(window.reset),
    'x-ratelimit-resource': 'core',
    ...extra,
  });
  res.end(text);
}

/** A list answer with an ETag; 304 when the client already has it (no quota spent). */
function sendList(req, res, body) {
  const etag = `"${createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 32)}"`;
  if (req.headers['if-none-match'] === etag) return send(req, res, 304, undefined, { etag });
  return send(req, res, 200, body, { etag });
}

// The repository as a run names it (GitHub's minimal-repository, the fields deferral-host reads).
const REPO_ID = 7001;
const repository = { id: REPO_ID, full_name: repo, fork: false };

const runJson = (run) => ({
  id: run.id, name: 'labels', display_title: run.title, event: run.event, status: run.status,
  conclusion: run.conclusion, head_branch: 'main', run_attempt: 1, created_at: run.created,
  path: `.github/workflows/${workflow}`, repository, head_repository: repository,
  html_url: `https://github.com/${repo}/actions/runs/${run.id}`,
  url: `${api}/repos/${repo}/actions/runs/${run.id}`,
});

const artifactJson = (a) => ({
  id: a.id, name: 'deferred-receipt', size_in_bytes: a.zip.length, expired: false,
  archive_download_url: `${api}/repos/${repo}/actions/artifacts/${a.id}/zip`,
  workflow_run: { id: a.runId, repository_id: REPO_ID, head_repository_id: REPO_ID, head_branch: 'main' },
});

/** A run of the workflow: the Action as its gate step, then the work when it says ready. */
async function execute(run, extraInputs) {
  run.status = 'in_progress';
  const gate = await runAction(root, {
    github: { ...config.github, GITHUB_API_URL: api, GITHUB_RUN_ID: String(run.id) },
    inputs: { ...config.inputs, token: workflowToken, 'on-deferral': 'succeed', ...extraInputs },
    workDir: config.workDir,
  });
  run.gate = gate.outputs.status;
  if (gate.outputs.status === 'deferred') {
    const file = gate.outputs['receipt-path'];
    artifacts.push({ id: nextArtifact++, runId: run.id, zip: zip([{ name: basename(file), data: readFileSync(file) }]) });
    run.conclusion = 'success';
  } else if (gate.outputs.status === 'ready') {
    const work = await new Promise((resolve) => {
      const child = spawn(process.execPath, [join(root, 'scripts/demo/label-issues.mjs'), String(writes)], {
        env: { PATH: process.env.PATH, GITHUB_API_URL: api, GITHUB_REPOSITORY: repo, GITHUB_TOKEN: workflowToken },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      child.on('close', resolve);
    });
    run.conclusion = work === 0 ? 'success' : 'failure';
  } else {
    run.conclusion = 'failure';
  }
  run.status = 'completed';
}

function startRun(event, title, extraInputs = {}) {
  const run = { id: nextRun++, event, title, status: 'queued', conclusion: null, created: new Date().toISOString() };
  runs.push(run);
  run.done = execute(run, extraInputs);
  return run;
}

async function body(req) {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : {};
}

async function route(req, res) {
  const url = new URL(req.url, api);
  const path = url.pathname;
  const prefix = `/repos/${repo}`;
  if (req.method === 'GET' && path === '/rate_limit') {
    const core = bucket(req);
    return send(req, res, 200, { resources: { core, graphql: { limit: LIMIT, used: 0, remaining: LIMIT, reset: started + 3600 } }, rate: core });
  }
  if (req.method === 'GET' && path === '/_stand-in/stats') {
    return send(req, res, 200, { ...stats, runs: runs.map((r) => ({ id: r.id, event: r.event, title: r.title, status: r.status, conclusion: r.conclusion, gate: r.gate })), artifacts: artifacts.map((a) => ({ id: a.id, run: a.runId })) });
  }
  if (req.method === 'POST' && path === '/_stand-in/schedule') {
    const run = startRun('schedule', 'labels');
    await run.done;
    return send(req, res, 200, runJson(run));
  }
  if (req.method === 'POST' && /^\/repos\/[^/]+\/[^/]+\/issues\/\d+\/labels$/.test(path)) {
    const window = bucket(req);
    if (window.remaining === 0) return send(req, res, 403, { message: 'API rate limit exceeded' });
    if (Math.floor(Date.now() / 1000) < reset) stats.writesBeforeReset += 1;
    else spent += 1;
    stats.labelWrites += 1;
    return send(req, res, 200, [{ name: 'triaged' }]);
  }
  if (req.method === 'GET' && path === `${prefix}/actions/artifacts`) {
    const list = artifacts.filter(() => url.searchParams.get('name') === 'deferred-receipt').map(artifactJson);
    return sendList(req, res, { total_count: list.length, artifacts: list });
  }
  if (req.method === 'GET' && path === prefix) {
    return sendList(req, res, { ...repository, default_branch: 'main' });
  }
  if (req.method === 'GET' && path === `${prefix}/actions/runs`) {
    const list = runs.slice().reverse().map(runJson);
    return sendList(req, res, { total_count: list.length, workflow_runs: list });
  }
  let m = new RegExp(`^${prefix}/actions/artifacts/(\\d+)/zip$`).exec(path);
  if (req.method === 'GET' && m) {
    return send(req, res, 302, undefined, { location: `${blob}/artifacts/${m[1]}.zip?sig=demo-signature-not-real` });
  }
  m = new RegExp(`^${prefix}/actions/workflows/([^/]+)/dispatches$`).exec(path);
  if (req.method === 'POST' && m && m[1] === workflow) {
    const { ref, inputs, return_run_details: details } = await body(req);
    stats.dispatches.push({ ref, inputs: Object.keys(inputs ?? {}).sort(), return_run_details: details === true });
    const run = startRun('workflow_dispatch', `labels ${inputs.deferral_id} #${inputs.attempt}`, { receipt: inputs.receipt, approval: 'granted' });
    if (!details) return send(req, res, 204);
    return send(req, res, 200, { workflow_run_id: run.id, run_url: `${api}${prefix}/actions/runs/${run.id}`, html_url: runJson(run).html_url });
  }
  m = new RegExp(`^${prefix}/actions/workflows/([^/]+)/runs$`).exec(path);
  if (req.method === 'GET' && m && m[1] === workflow) {
    const event = url.searchParams.get('event');
    const status = url.searchParams.get('status');
    const list = runs.filter((r) => (!event || r.event === event) && (!status || r.status === status)).reverse().map(runJson);
    return sendList(req, res, { total_count: list.length, workflow_runs: list });
  }
  m = new RegExp(`^${prefix}/actions/runs/(\\d+)(/artifacts)?$`).exec(path);
  if (req.method === 'GET' && m) {
    const run = runs.find((r) => r.id === Number(m[1]));
    if (!run) return send(req, res, 404, { message: 'Not Found' });
    if (!m[2]) return send(req, res, 200, runJson(run));
    const list = artifacts.filter((a) => a.runId === run.id).map(artifactJson);
    return send(req, res, 200, { total_count: list.length, artifacts: list });
  }
  return send(req, res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
}

const apiServer = http.createServer((req, res) => {
  route(req, res).catch((err) => send(req, res, 500, { message: String(err) }));
});
// Blob storage: the signed URL is the credential; the token must not come along.
const blobServer = http.createServer((req, res) => {
  stats.blobRequests += 1;
  if (req.headers.authorization) stats.blobRequestsWithToken += 1;
  const found = artifacts.find((a) => req.url.startsWith(`/artifacts/${a.id}.zip`));
  if (!found) {
    res.writeHead(404);
    return res.end();
  }
  res.writeHead(200, { 'content-type': 'application/zip', 'content-length': found.zip.length });
  return res.end(found.zip);
});

const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));
api = await listen(apiServer);
blob = await listen(blobServer);
process.stdout.write(`${JSON.stringify({ api, blob, reset })}\n`);
process.on('SIGTERM', () => {
  apiServer.closeAllConnections?.();
  blobServer.closeAllConnections?.();
  apiServer.close();
  blobServer.close(() => process.exit(0));
});
