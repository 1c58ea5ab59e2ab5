// One gate or resume attempt, driven by the core (core/src/attempt.rs): the core says what to
// read, what to ask GitHub and the durable port, and finally what to print, set and write. This
// file only does that I/O. It never sleeps, polls, retries or replays.
import { builtin } from './builtin.js';
import { call } from './core.js';
import { request } from './http.js';
import { CommandError } from './exit-codes.js';
import { readBounded, RECEIPT_READ_BYTES } from './read-input.js';
import { withLedgerLock } from './ledger-file.js';

const { mkdirSync, writeFileSync } = builtin('node:fs');
const { dirname } = builtin('node:path');
const ENV = ['GITHUB_API_URL', 'GITHUB_REPOSITORY', 'GITHUB_WORKFLOW_REF', 'GITHUB_JOB', 'DEFERRAL_WAKEUP_HANDLE'];

function writeAll(writes = []) {
  for (const w of writes) {
    mkdirSync(dirname(w.path), { recursive: true });
    writeFileSync(w.path, w.text, { mode: w.mode, flag: w.exclusive ? 'wx' : 'w' });
  }
}

async function ask(req, token, env, input) {
  const headers = Object.fromEntries(req.headers);
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    input.answer = await request(req.url, { headers, env });
  } catch (err) {
    input.transport_error = err.message;
  }
}

async function retain(port, secret, env, input) {
  // Loaded only when a durable port is configured and the gate deferred.
  const { createResumableDeferralHost } = await import('deferral');
  try {
    const host = createResumableDeferralHost({ url: port.url, token: secret, env });
    const got = await host.retain(JSON.stringify(port.receipt), { launch: port.launch });
    input.retained = { id: got.id, receipt: got.receipt, cancellation_handle: got.cancellationHandle };
  } catch (err) {
    input.coordinator_error = `${err.status ? `HTTP ${err.status} ` : ''}${err.code ?? 'error'}: ${err.message}`;
  }
}

/**
 * Runs an attempt: `inputs` by name as given (Action inputs or CLI flags), `token` for the one
 * request. Resolves with the core's last step: {exit, status, line, verdict} for the CLI,
 * {exit, status, failed, outputs, summary, commands} for the Action.
 */
export async function runAttempt({ command, surface, inputs, env, token, tempDir = '' }) {
  const input = {
    command, surface, inputs, token: Boolean(token), files: {}, temp_dir: tempDir,
    env: Object.fromEntries(ENV.filter((k) => env[k]).map((k) => [k, env[k]])),
    now_ms: Date.now(), utc_offset_min: -new Date().getTimezoneOffset(),
  };
  let step = call('attempt', input);
  try {
    while (step.step !== 'done') {
      for (const [name, path] of Object.entries(step.read ?? {})) {
        const limits = name === 'receipt' ? { limit: RECEIPT_READ_BYTES - 1, allowOver: true } : {};
        input.files[name] = readBounded(path, name, limits).toString('utf8');
      }
      if (step.request) await ask(step.request, token, env, input);
      writeAll(step.writes);
      if (step.step === 'retain') await retain(step.retain, inputs['coordinator-token'], env, input);
      else input.now_ms = Date.now(); // a retained answer repeats the decision at the same time
      const cross = (ledger) => {
        if (ledger !== undefined) input.files.ledger = ledger;
        const next = call('attempt', input);
        return [next, next.ledger ?? null];
      };
      step = step.lock ? withLedgerLock(step.lock, cross) : cross(undefined)[0];
    }
  } catch (err) {
    if (!(err instanceof CommandError)) throw err;
    input.shell_error = { code: err.code, message: err.message, exit: err.exit, path: err.path };
    step = call('attempt', input);
  }
  writeAll(step.writes);
  return step;
}
