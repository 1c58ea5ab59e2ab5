// The Action: read inputs, read the rate state with one GET /rate_limit, let the core decide (gate)
// or run the fresh preflight then decide (resume), write outputs, summary and annotation. Every
// outcome, failures included, ends in finish(): one place that sets outputs and the step result.
import { builtin } from './lib/builtin.js';
import { readActionInputs } from './lib/inputs.js';
import { buildGateOptions } from './lib/gate-options.js';
import { runGate, runResume } from './lib/attempt.js';
import { CommandError, EXIT } from './lib/exit-codes.js';
import { annotate, appendSummary, escapeData, mask, setOutputs } from './lib/runner.js';
import { actionOutputs, errorOutputs, resultJson } from './lib/result-view.js';
import { explainLine, summaryMarkdown } from './lib/summary.js';
import { coordinatorConfig, retainWithCoordinator } from './lib/coordinator-handoff.js';

const { mkdirSync, writeFileSync } = builtin('node:fs');
const { tmpdir } = builtin('node:os');
const { join } = builtin('node:path');

/** Writes the receipt where actions/upload-artifact can pick it up; answers the path. */
function writeReceiptFile(receipt, env) {
  const dir = join(env.RUNNER_TEMP || tmpdir(), 'deferral');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `deferred-receipt-${receipt.issued_at_ms}.json`);
  writeFileSync(path, `${JSON.stringify(receipt)}\n`, { mode: 0o644 });
  return path;
}

function readReceiptInput(text) {
  return Buffer.from(text, 'utf8');
}

export async function run(env = process.env) {
  const raw = readActionInputs(env);
  // Masks first: nothing may print before the runner knows what to hide. The scope, request and
  // repository are never printed in the first place (only their digests), and outputs are never
  // rewritten by substring: a scope of `ready` must not turn the status output into ***.
  mask(raw.token);
  mask(raw.coordinatorToken);
  mask(env.DEFERRAL_WAKEUP_HANDLE);
  let onDeferral = 'fail';

  const finish = (view, outputs) => {
    setOutputs(outputs, env);
    appendSummary(summaryMarkdown(view), env);
    const line = explainLine(view);
    // Escaped as workflow-command data: a message carrying a plan's key or a port's words
    // cannot start a line of its own.
    process.stdout.write(`deferral: ${escapeData(line)}\n`);
    const failed = view.status !== 'ready' && !(view.status === 'deferred' && onDeferral === 'succeed');
    const level = failed ? 'error' : view.status === 'deferred' ? 'warning' : 'notice';
    if (view.status !== 'ready') annotate(level, line, { title: `Deferral: ${view.status}` });
    process.exitCode = failed ? 1 : 0;
  };

  let kept = null; // outputs of a deferral whose receipt is on disk, if the port then fails
  try {
    // Checked before the one GitHub request, so a misconfigured port costs no API call.
    const coordinator = coordinatorConfig(raw);
    const options = buildGateOptions(raw, env);
    onDeferral = options.onDeferral;
    options.ledgerFile = raw.ledgerFile;
    options.wakeupHandle = env.DEFERRAL_WAKEUP_HANDLE;
    if (!raw.token) {
      throw new CommandError(EXIT.auth, 'missing-token', 'the token input is empty: pass a token (the default is github.token)');
    }
    const source = { token: raw.token, env };
    let result;
    if (raw.receipt) {
      options.receiptBytes = readReceiptInput(raw.receipt);
      result = await runResume(options, source);
    } else {
      result = await runGate(options, source);
    }
    const receiptPath = result.status === 'deferred' && result.receipt ? writeReceiptFile(result.receipt, env) : '';
    const extra = { 'deferral-id': '', 'cancellation-handle-path': '' };
    // Gate mode only: a resumed run still limited belongs to the deferral that launched it, and
    // recording its receipt again would make a second deferral of the same work.
    if (receiptPath && coordinator && !raw.receipt) {
      kept = { ...actionOutputs(result, receiptPath), ...extra, status: 'error' };
      const retained = await retainWithCoordinator(coordinator, result.receipt, env);
      result.receipt = retained.receipt;
      writeReceiptFile(retained.receipt, env);
      extra['deferral-id'] = retained.id;
      extra['cancellation-handle-path'] = retained.handlePath;
    }
    const view = resultJson(result);
    if (extra['deferral-id']) view.deferralId = extra['deferral-id'];
    finish(view, { ...actionOutputs(result, receiptPath), ...extra });
  } catch (err) {
    const known = err instanceof CommandError;
    const code = known ? err.code : 'internal-error';
    const message = known ? err.message : `unexpected failure: ${err?.stack ?? err}`;
    const outputs = kept ?? { ...errorOutputs(), 'deferral-id': '', 'cancellation-handle-path': '' };
    finish({ status: 'error', code, message, diagnostics: [{ code, message }] }, outputs);
  }
}
