// Shared test helpers: where the repository is, and running the built CLI.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const repoRoot = join(fileURLToPath(import.meta.url), '..', '..', '..');
export const cliPath = join(repoRoot, 'dist/cli.js');

/** Runs `deferral ARGS` with the current Node; returns {status, stdout, stderr, json}. */
export function deferral(args, options = {}) {
  const run = spawnSync(process.execPath, [cliPath, ...args], { encoding: 'utf8', ...options });
  let json = null;
  try { json = JSON.parse(run.stdout.trim().split('\n').at(-1)); } catch { /* not JSON */ }
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, json };
}
