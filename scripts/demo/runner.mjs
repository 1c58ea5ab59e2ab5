// What a GitHub runner gives an Action step, for the demo: the step's environment (inputs as
// INPUT_* variables, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files under RUNNER_TEMP), running
// the built Action (dist/main.js) once, and reading back the outputs it wrote.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** GITHUB_OUTPUT holds name<<DELIMITER / value / DELIMITER blocks. */
export function readOutputs(file) {
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

/**
 * Runs dist/main.js as one step: `github` holds GITHUB_* variables, `inputs` the step's `with:`
 * (names as in action.yml). Resolves to {status (exit code), outputs, summary, stdout, stderr, temp}.
 * Asynchronous, so a stand-in for GitHub in the same process keeps answering meanwhile.
 */
export async function runAction(root, { github, inputs, workDir }) {
  const temp = mkdtempSync(join(workDir, 'runner-'));
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    RUNNER_TEMP: temp,
    GITHUB_OUTPUT: join(temp, 'output.txt'),
    GITHUB_STEP_SUMMARY: join(temp, 'summary.md'),
    ...github,
  };
  for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.toUpperCase()}`] = value;
  for (const f of [env.GITHUB_OUTPUT, env.GITHUB_STEP_SUMMARY]) writeFileSync(f, '');
  const run = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'dist/main.js')], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
  return {
    status: run.status,
    outputs: readOutputs(env.GITHUB_OUTPUT),
    summary: readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8'),
    stdout: run.stdout,
    stderr: run.stderr,
    temp,
  };
}
