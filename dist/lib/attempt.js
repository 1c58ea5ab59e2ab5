// Runs the CLI or the Action as the core directs (driver/src/run.rs): each crossing answers the
// next step, and this file does only that step's I/O: read files, hold the ledger lock, make a
// request, print and write. It never decides, sleeps, polls, retries or replays.
import { builtin } from './builtin.js';
import { run } from './wasm.js';
import { request } from './http.js';
import { IoError, readUpTo } from './read-input.js';
import { withLock } from './ledger-file.js';
import { privateFolder } from './private-folder.js';

const { appendFileSync, mkdirSync, writeFileSync } = builtin('node:fs');
const { dirname } = builtin('node:path');
const { tmpdir } = builtin('node:os');

// The variables the core may read: inputs, the runner's and ours, proxies, the CLI's tokens.
const PASSED = /^(INPUT_|GITHUB_|RUNNER_|DEFERRAL_)|^(HTTPS?_PROXY|NO_PROXY|GH_TOKEN)$/i;

function writeFile(w) {
  try {
    if (w.append) {
      appendFileSync(w.path, w.text, 'utf8');
      return;
    }
    if (w.private_folder) privateFolder(dirname(w.path));
    else mkdirSync(dirname(w.path), { recursive: true });
    writeFileSync(w.path, w.text, { mode: w.mode, flag: w.exclusive ? 'wx' : 'w' });
  } catch (err) {
    if (err instanceof IoError) throw err;
    throw new IoError({ op: 'write', path: w.path, detail: err.code ?? err.message });
  }
}

// Files first: a write that fails is reported by the core in place of what would have printed.
function perform(step) {
  for (const dir of step.folders ?? []) privateFolder(dir);
  for (const w of step.writes ?? []) {
    if (w.best_effort) {
      // The host's report file: the line is on stdout too, so a failure only warns.
      try { appendFileSync(w.path, w.text, 'utf8'); } catch (err) { process.stderr.write(`deferral: warning: could not append to ${w.path}: ${err.message}\n`); }
      continue;
    }
    writeFile(w);
  }
  if (step.stdout) process.stdout.write(step.stdout);
  if (step.stderr) process.stderr.write(step.stderr);
}

/** The core's answer to a failure of the last step's own I/O: one more crossing, performed as
 * far as it goes (its text is printed even when its own writes fail too). */
function failLast(err, input, cross) {
  input.io_error = err instanceof IoError ? err.facts : { op: 'internal', detail: String(err?.message ?? err) };
  const step = cross();
  try {
    perform(step);
  } catch {
    if (step.stdout) process.stdout.write(step.stdout);
    if (step.stderr) process.stderr.write(step.stderr);
  }
  return step;
}

async function send(req, env, input) {
  const headers = Object.fromEntries(req.headers);
  const token = env[req.token_env]?.trim();
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    input[req.into ?? 'answer'] = await request(req.url, {
      method: req.method, headers, body: req.body, proxy: req.proxy ?? null, timeoutMs: req.timeout_ms, maxBytes: req.max_bytes,
    });
  } catch (err) {
    input[req.error_into ?? 'transport_error'] = err.message;
  }
}

/** Runs to the last step: `start` is {surface: 'cli', argv} or {surface: 'action'}. */
export async function runAttempt(start, env = process.env) {
  const input = {
    ...start, crossing: 0, tmpdir: tmpdir(), uid: process.getuid?.() ?? null, stderr_tty: Boolean(process.stderr.isTTY),
    env: Object.fromEntries(Object.entries(env).filter(([k]) => PASSED.test(k))),
    now_ms: Date.now(), utc_offset_min: -new Date().getTimezoneOffset(),
  };
  const files = []; // [name, bytes | null, path], in the order the core sees them
  const cross = () => {
    input.file_sizes = files.map(([name, bytes, path]) => [name, bytes?.length ?? null, path]);
    const step = run(JSON.stringify(input), Buffer.concat(files.filter((f) => f[1]).map((f) => f[1])));
    input.crossing++;
    return step;
  };
  let step = cross();
  while (step.step !== 'done') {
    try {
      perform(step);
      for (const r of step.read ?? []) files.push([r.name, readUpTo(r.path, r.limit), r.path]);
      if (step.request) await send(step.request, env, input);
      if (!step.same_clock) input.now_ms = Date.now();
      step = step.lock
        ? withLock(step.lock, (bytes) => { files.push(['ledger', bytes, step.lock.path]); return cross(); })
        : cross();
    } catch (err) {
      input.io_error = err instanceof IoError ? err.facts : { op: 'internal', detail: String(err?.message ?? err) };
      step = cross();
    }
  }
  try {
    perform(step);
  } catch (err) {
    // Never a stack trace at the end (the port may have answered already): a coded error.
    return failLast(err, input, cross);
  }
  return step;
}
