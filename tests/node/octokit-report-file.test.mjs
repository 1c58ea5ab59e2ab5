// deferral/octokit in a process deferral-host launched (DEFERRAL_REPORT_FILE set): once its
// plan is let through, it appends the plan's gate line to the host's report file, the line
// `deferral gate` prints, so the host's pool learns what the work saw and planned whatever the
// process prints last. Without the variable nothing is written.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Octokit } from '@octokit/core';
import { deferral } from 'deferral/octokit';
import { startGitHub } from '../support/octokit-github.mjs';

const Gated = Octokit.plugin(deferral);
const PLAN = { rest: [{ method: 'POST', route: '/repos/{owner}/{repo}/issues/{issue_number}/comments', count: 3 }] };
const dir = mkdtempSync(join(tmpdir(), 'deferral-octokit-report-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const comment = (octokit) => octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner: 'octo', repo: 'app', issue_number: 1, body: 'hi' });

test('a plan let through appends its gate line to DEFERRAL_REPORT_FILE, once', async () => {
  const github = await startGitHub({ limit: 5000, core: 4990 });
  const report = join(dir, 'report.jsonl');
  process.env.DEFERRAL_REPORT_FILE = report;
  try {
    const octokit = new Gated({ baseUrl: github.url, auth: 'test-token-not-real', deferral: { scope: { work: 'comments' }, plan: PLAN } });
    await comment(octokit);
    await comment(octokit);
    const lines = readFileSync(report, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 1, 'one line for the plan, not one per request');
    const line = JSON.parse(lines[0]);
    assert.deepEqual([line.status, line.mode], ['ready', 'gate']);
    assert.deepEqual([line.rest.limit, line.rest.remaining, line.rest.plannedCost], [5000, 4990, 3]);
    assert.equal(line.rest.reset, github.state.reset);
    assert.equal(line.plan.rest, 3);
  } finally {
    delete process.env.DEFERRAL_REPORT_FILE;
    await github.stop();
  }
});

test('without DEFERRAL_REPORT_FILE nothing is written', async () => {
  const github = await startGitHub({ limit: 5000, core: 4990 });
  const report = join(dir, 'report.jsonl');
  const before = existsSync(report) ? readFileSync(report, 'utf8') : null;
  try {
    const octokit = new Gated({ baseUrl: github.url, auth: 'test-token-not-real', deferral: { scope: { work: 'comments' }, plan: PLAN } });
    await comment(octokit);
    assert.equal(existsSync(report) ? readFileSync(report, 'utf8') : null, before, 'nothing appended');
  } finally {
    await github.stop();
  }
});
