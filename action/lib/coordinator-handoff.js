// The Action's opt-in durable port (inputs coordinator-url, coordinator-token,
// coordinator-launch): on deferral the handoff receipt goes to `deferral-host serve`, which
// retains it and wakes a fresh run. The cancellation handle is written to a 0600 file, never
// printed: whoever reads a log must not be able to cancel the deferral.
import { builtin } from './builtin.js';
import { CommandError, EXIT } from './exit-codes.js';
import { createResumableDeferralHost } from './resumable-host.js';

const { mkdirSync, writeFileSync } = builtin('node:fs');
const { tmpdir } = builtin('node:os');
const { join } = builtin('node:path');

const invalid = (code, message) => new CommandError(EXIT.invalid, code, message);

/** The port settings, or null when coordinator-url is empty (the port is opt-in). */
export function coordinatorConfig(raw) {
  if (!raw.coordinatorUrl) return null;
  let url;
  try { url = new URL(raw.coordinatorUrl); } catch { url = null; }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw invalid('invalid-coordinator-url', 'coordinator-url must be an http:// or https:// URL of deferral-host serve');
  }
  if (!raw.coordinatorToken) throw invalid('missing-coordinator-token', 'coordinator-url needs coordinator-token (the serve bearer token, from a secret)');
  if (!raw.coordinatorLaunch) {
    throw invalid('missing-coordinator-launch', 'coordinator-url needs coordinator-launch, e.g. workflow-dispatch:OWNER/REPO/WORKFLOW@REF');
  }
  return { url: url.href, token: raw.coordinatorToken, launch: raw.coordinatorLaunch };
}

function writeHandleFile(id, handle, env) {
  const dir = join(env.RUNNER_TEMP || tmpdir(), 'deferral');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `cancellation-handle-${id}`);
  // 'wx': never follow or reuse a file someone put there first.
  writeFileSync(path, `${handle}\n`, { mode: 0o600, flag: 'wx' });
  return path;
}

/**
 * Hands the handoff `receipt` to the port. Answers {id, receipt (retained), handlePath}; a
 * refusal or an unreachable port is a CommandError (the caller has already kept the receipt).
 */
export async function retainWithCoordinator(config, receipt, env) {
  const host = createResumableDeferralHost({ url: config.url, token: config.token, env });
  let retained;
  try {
    retained = await host.retain(JSON.stringify(receipt), { launch: config.launch });
  } catch (err) {
    const http = err.status ? `HTTP ${err.status} ` : '';
    throw new CommandError(EXIT.provider, 'coordinator-failed',
      `the durable port did not retain the receipt (${http}${err.code ?? 'error'}: ${err.message}); the handoff receipt is kept at receipt-path`);
  }
  // The port's answer names a file: a hostile or broken port must not choose where it goes.
  if (typeof retained.id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(retained.id)) {
    throw new CommandError(EXIT.provider, 'invalid-coordinator-answer', 'the durable port answered a deferral id that is not 1 to 64 of [A-Za-z0-9_-]; the handoff receipt is kept at receipt-path');
  }
  if (typeof retained.cancellationHandle !== 'string' || !/^[0-9a-f]{64}$/.test(retained.cancellationHandle)) {
    throw new CommandError(EXIT.provider, 'invalid-coordinator-answer', 'the durable port answered a cancellation handle that is not 64 lowercase hex; the handoff receipt is kept at receipt-path');
  }
  return { id: retained.id, receipt: retained.receipt, handle: retained.cancellationHandle, handlePath: writeHandleFile(retained.id, retained.cancellationHandle, env) };
}
