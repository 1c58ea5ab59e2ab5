// One gate or resume attempt, shared by the Action and the CLI so the two never disagree:
// options in, one rate-state read (live: exactly one GET /rate_limit; or a saved file), the core's
// decision or preflight, one result out. It never sleeps, polls, retries or replays.
import { call, validateReceipt } from './core.js';
import { decisionInputJson } from './gate-options.js';
import { fetchRateState, readRateStateFile } from './rate-state.js';
import { CommandError, EXIT } from './exit-codes.js';

/** Preflight codes decided from the receipt and inputs alone, before any rate state is read. */
const OFFLINE_STOPS = new Set(['invalid-receipt', 'not-yet-due', 'expired', 'claim-unavailable', 'binding-mismatch', 'approval-required']);

// A rate state with no windows: what the core sees when none could be read.
const NO_RATE_STATE = Object.freeze({ unlimited: false, resources: {} });

const EXIT_FOR_STATUS = { ready: EXIT.ok, deferred: EXIT.deferred, blocked: EXIT.blocked };
// Decision errors that come from what the caller gave (exit 2), not from the provider.
const INPUT_ERRORS = new Set(['invalid-input', 'invalid-policy', 'invalid-ledger', 'invalid-plan']);

/** Reads the rate state once and folds it (and the ledger file, if any) into the decision input. */
async function gatherRate(options, source, nowMs) {
  const state = source.file !== undefined
    ? readRateStateFile(source.file, nowMs())
    : await fetchRateState({ token: source.token, env: source.env, nowMs, timeoutMs: source.timeoutMs });
  const at = nowMs();
  let ledger = null;
  if (options.ledgerFile) {
    // Loaded only when a ledger file is in use: most runs have none.
    const { updateLedger } = await import('./ledger-file.js');
    ledger = updateLedger(options.ledgerFile, { observations: state.observations, nowMs: at });
  } else if (state.secondary) {
    // No shared ledger: the strike still has to hold this decision.
    ledger = call('merge_ledger', { ledgers: [], observations: state.observations, now_ms: at }).ledger;
  }
  // Without a fresh snapshot (/rate_limit itself answered with a secondary limit) the core
  // decides on the ledger: its recorded windows, and the hold the strike just recorded.
  const rate = state.snapshot ?? NO_RATE_STATE;
  return { state, rate, ledger, at };
}

/** Names the case where the rate endpoint itself was secondary-limited, for people reading it. */
function settle(decision, state) {
  if (state.secondary && !state.snapshot) {
    decision.diagnostics.unshift({
      code: 'rate-endpoint-secondary-limit',
      message: state.secondary.retryAfterS == null
        ? 'GET /rate_limit answered with a secondary rate limit and no retry-after'
        : `GET /rate_limit answered with a secondary rate limit; retry-after ${state.secondary.retryAfterS} s`,
    });
  }
  return decision;
}

function fromDecision(mode, decision, extra = {}) {
  const exit = decision.status === 'error'
    ? (INPUT_ERRORS.has(decision.code) ? EXIT.invalid : EXIT.provider)
    : EXIT_FOR_STATUS[decision.status];
  return {
    mode,
    status: decision.status,
    exit,
    code: decision.code ?? null,
    reason: decision.reason ?? null,
    decision,
    receipt: decision.receipt ?? null,
    diagnostics: decision.diagnostics ?? [],
    ...extra,
  };
}

function coreAnswer(answer) {
  if (!answer.ok) throw new CommandError(EXIT.invalid, answer.error.code, answer.error.message, answer.error.path);
  return answer;
}

/** Gate: ready, deferred (with a handoff receipt) or blocked, from fresh rate state. */
export async function runGate(options, source, nowMs = () => Date.now()) {
  const { state, rate, ledger, at } = await gatherRate(options, source, nowMs);
  const input = decisionInputJson(options, { rate, ledger, nowMs: at, clockOffsetMs: state.clockOffsetMs });
  const { decision } = coreAnswer(call('decide', input));
  return fromDecision('gate', settle(decision, state), { source: state.source });
}

/**
 * Resume: the fresh preflight (receipt, due window, claim, bindings, approval) and then the gate.
 * Checks that need no rate state run first, so a receipt that cannot resume costs no request.
 */
export async function runResume(options, source, nowMs = () => Date.now()) {
  const checked = validateReceipt(options.receiptBytes);
  if (!checked.ok) {
    const { code, path, message } = checked.error;
    throw new CommandError(EXIT.invalid, 'invalid-receipt', `the receipt is invalid: ${code} at ${path}: ${message}`, path);
  }
  const receiptText = options.receiptBytes.toString('utf8');
  const preflightInput = (fresh) => {
    const head = JSON.stringify({ receipt: receiptText, wakeup_handle: options.wakeupHandle ?? null, approval_granted: options.approvalGranted });
    return `${head.slice(0, -1)},"fresh":${fresh}}`;
  };

  // Offline pass with no rate state: it stops at a check that needs none, or reaches the fresh
  // decision and answers missing-rate-state, which means "now read the rate state".
  const offline = decisionInputJson(options, { rate: NO_RATE_STATE, ledger: null, nowMs: nowMs(), clockOffsetMs: null });
  const first = coreAnswer(call('preflight', preflightInput(offline))).preflight;
  if (first.status !== 'ready' && first.status !== 'deferred' && OFFLINE_STOPS.has(first.code)) {
    return fromPreflight(first, null, 'offline');
  }

  const { state, rate, ledger, at } = await gatherRate(options, source, nowMs);
  const fresh = decisionInputJson(options, { rate, ledger, nowMs: at, clockOffsetMs: state.clockOffsetMs });
  const result = coreAnswer(call('preflight', preflightInput(fresh))).preflight;
  if (result.decision) settle(result.decision, state);
  return fromPreflight(result, state, state.source);
}

function fromPreflight(p, state, source) {
  const decision = p.decision ?? {
    status: p.status, code: p.code, reason: null, unlimited: false, rest: null, graphql: null, plan: null,
    secondary: null, clock_offset_ms: null, resume_after_ms: null, resume_by_ms: null, bindings: null,
    diagnostics: [], receipt: null,
  };
  const result = fromDecision('resume', decision, {
    source,
    ownership: p.ownership,
    field: p.field ?? null,
  });
  result.status = p.status;
  result.code = p.code ?? null;
  result.exit = p.status === 'error'
    ? (INPUT_ERRORS.has(p.code) ? EXIT.invalid : EXIT.provider)
    : EXIT_FOR_STATUS[p.status];
  result.receipt = p.receipt ?? null;
  // The preflight's own stop reasons first, then the decision's notes.
  const own = p.diagnostics.filter((d) => !decision.diagnostics.some((e) => e.code === d.code && e.message === d.message));
  result.diagnostics = [...own, ...decision.diagnostics];
  return result;
}
