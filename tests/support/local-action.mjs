// Runs the built Action through GitHub's own runner for a laptop, `@github/local-action` (a
// devDependency at an exact version), as its README says: `local-action run DIR ENTRY ENVFILE`.
// Its `bin` starts `npm exec tsx ...`, which finds `tsx` on PATH; this repository's .npmrc sets
// bin-links=false (so no node_modules/.bin), so a temporary directory on PATH holds the two
// links npm would have made: `tsx` (local-action's own dependency) and `node` (the Node that
// runs the test, so a Node 24 pass stays on Node 24 all the way down).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../node/helpers.mjs';
import { parseOutputFile, runnerEnv } from './run-action.mjs';
import { TEST_TOKEN } from './fake-github.mjs';

const localAction = join(repoRoot, 'node_modules/@github/local-action');

/** The dotenv file local-action reads: `NAME=value` lines, values quoted. */
const dotenv = (vars) => Object.entries(vars).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join('\n') + '\n';

/**
 * Runs `local-action run <repo> dist/main.js <envfile>` with `inputs` against `apiUrl`. Resolves
 * with {status, stdout, stderr, outputs, summary, tempDir, cleanup()}.
 */
export async function runLocalAction(apiUrl, inputs = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'deferral-local-action-'));
  const bin = join(dir, 'bin');
  const outputFile = join(dir, 'output');
  const summaryFile = join(dir, 'summary.md');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  // The links npm makes in node_modules/.bin when bin-links is on.
  mkdirSync(bin);
  symlinkSync(join(repoRoot, 'node_modules/tsx/dist/cli.mjs'), join(bin, 'tsx'));
  symlinkSync(process.execPath, join(bin, 'node'));
  const env = {
    ...runnerEnv(apiUrl),
    GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summaryFile, RUNNER_TEMP: dir,
    ...Object.fromEntries(Object.entries({ token: TEST_TOKEN, ...inputs }).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
  };
  delete env.PATH;
  delete env.HOME;
  const envFile = join(dir, '.env');
  writeFileSync(envFile, dotenv(env));
  const run = await new Promise((resolve) => {
    const child = spawn(process.execPath, [join(localAction, 'bin/local-action.js'), 'run', repoRoot, 'dist/main.js', envFile], {
      cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: `${bin}:${process.env.PATH}`, HOME: process.env.HOME, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
  const parsed = parseOutputFile(readFileSync(outputFile, 'utf8'));
  const outputs = Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, v.at(-1)]));
  return { ...run, outputs, parsedOutputs: parsed, summary: readFileSync(summaryFile, 'utf8'), tempDir: dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

