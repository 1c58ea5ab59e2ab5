// Starts the real `deferral-host serve` (target/debug, built by `cargo test` or here when
// missing) on a free loopback port with a temporary SQLite store, for the Node tests.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { repoRoot } from '../node/helpers.mjs';

export const hostBinary = join(repoRoot, 'target/debug/deferral-host');
export const SERVE_TOKEN = 'node-serve-token-0123456789abcdef';

/** Builds the host binary once if no earlier step did. */
export function ensureHostBinary() {
  if (existsSync(hostBinary)) return;
  const built = spawnSync('cargo', ['build', '--quiet', '-p', 'deferral-host'], { cwd: repoRoot, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('cargo build -p deferral-host failed');
}

/** Runs a host command on the same store; answers {status, json, stderr}. */
function hostCommand(db, args, extraEnv = {}) {
  const run = spawnSync(hostBinary, ['--store', `sqlite:${db}`, ...args], {
    encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME, ...extraEnv },
  });
  let json = null;
  try { json = JSON.parse(run.stdout.trim().split('\n').at(-1)); } catch { /* not JSON */ }
  return { status: run.status, json, stderr: run.stderr };
}

/**
 * Starts serve; answers {url, token, tokenFile, dir, db, log(), host(args), stop()}. `log()` is
 * the request lines serve wrote so far ("POST /v1/deferrals 201"), to prove what was sent.
 */
export async function startServe({ allowLaunch = ['exec:', 'workflow-dispatch:'] } = {}) {
  ensureHostBinary();
  const dir = mkdtempSync(join(tmpdir(), 'deferral-serve-'));
  const db = join(dir, 'host.db');
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, `${SERVE_TOKEN}\n`, { mode: 0o600 });
  // Only `init` creates a store: serve refuses a missing one.
  const init = hostCommand(db, ['init']);
  if (init.status !== 0) throw new Error(`deferral-host init exited ${init.status}: ${init.stderr}`);
  const args = ['--store', `sqlite:${db}`, 'serve', '--listen', '127.0.0.1:0', '--token-file', tokenFile,
    ...allowLaunch.flatMap((p) => ['--allow-launch', p])];
  const child = spawn(hostBinary, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
  const lines = [];
  createInterface({ input: child.stderr }).on('line', (l) => lines.push(l.replace(/^deferral-host serve: /, '')));
  const first = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${lines.join('\n')}`)));
  });
  const url = `http://${JSON.parse(first).listening}`;
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    url, token: SERVE_TOKEN, tokenFile, dir, db,
    log: () => [...lines],
    host: (hostArgs, env) => hostCommand(db, hostArgs, env),
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}
