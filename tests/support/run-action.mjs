// Runs the built Action entry (dist/main.js) as the runner would: INPUT_* variables (hyphens
// kept), temporary GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and RUNNER_TEMP, then reads them back.
// Asynchronous on purpose: the fake API lives in the test process and must keep answering.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, cliPath } from '../node/helpers.mjs';
import { TEST_TOKEN } from './fake-github.mjs';

export const mainPath = join(repoRoot, 'dist/main.js');
export const TEST_REPOSITORY = 'octo-secret-org/octo-secret-repo';

/** The environment of a GitHub-hosted job, minus anything from the test machine. */
export function runnerEnv(apiUrl, extra = {}) {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GITHUB_ACTIONS: 'true',
    GITHUB_API_URL: apiUrl,
    GITHUB_GRAPHQL_URL: `${apiUrl}/graphql`,
    GITHUB_REPOSITORY: TEST_REPOSITORY,
    GITHUB_WORKFLOW_REF: `${TEST_REPOSITORY}/.github/workflows/labels.yml@refs/heads/main`,
    GITHUB_JOB: 'label',
    ...extra,
  };
}

/** Parses a GITHUB_OUTPUT file (name<<DELIM records and name=value lines) into a map of arrays. */
export function parseOutputFile(text) {
  const out = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line === '') continue;
    const heredoc = /^([^=]+?)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name, delim] = heredoc;
      const value = [];
      for (i++; i < lines.length && lines[i] !== delim; i++) value.push(lines[i]);
      (out[name] ??= []).push(value.join('\n'));
    } else {
      const eq = line.indexOf('=');
      (out[line.slice(0, eq)] ??= []).push(line.slice(eq + 1));
    }
  }
  return out;
}

function spawnNode(args, { env, input, node = process.execPath }) {
  return new Promise((resolve) => {
    const child = spawn(node, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/**
 * Runs dist/main.js with `inputs` ({name: value}) against `apiUrl`. Resolves with
 * {status, stdout, stderr, outputs (name -> value), rawOutput, summary, tempDir}.
 */
export async function runAction(apiUrl, inputs = {}, { env = {}, token = TEST_TOKEN } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'deferral-action-'));
  const outputFile = join(dir, 'output');
  const summaryFile = join(dir, 'summary.md');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const inputEnv = Object.fromEntries(Object.entries({ token, ...inputs }).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v]));
  const run = await spawnNode([mainPath], {
    env: { ...runnerEnv(apiUrl), GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summaryFile, RUNNER_TEMP: dir, ...inputEnv, ...env },
  });
  const rawOutput = readFileSync(outputFile, 'utf8');
  const parsed = parseOutputFile(rawOutput);
  const outputs = Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, v.at(-1)]));
  return { ...run, outputs, parsedOutputs: parsed, rawOutput, summary: readFileSync(summaryFile, 'utf8'), tempDir: dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `deferral ARGS` asynchronously; resolves with {status, stdout, stderr, json (last line)}. */
export async function runCli(args, { env = {}, input, node } = {}) {
  const run = await spawnNode([cliPath, ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, input, node });
  let json = null;
  try { json = JSON.parse(run.stdout.trim().split('\n').at(-1)); } catch { /* not JSON */ }
  return { ...run, json };
}
