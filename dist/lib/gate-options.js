// Turns the raw options of a gate or resume attempt (Action inputs or CLI flags, as text) into
// what the core needs, applying the documented defaults. Both surfaces call this one function,
// so the Action and the CLI bind the same scope, request, plan and policy to the same digests.
import { digest } from './core.js';
import { readBounded } from './read-input.js';
import { parseDuration } from './duration.js';
import { CommandError, EXIT } from './exit-codes.js';

export const DEFAULTS = Object.freeze({
  restReserve: '10%',
  graphqlReserve: '10%',
  resumeBuffer: '60s',
  resumeWindow: '6h',
  resumeJitter: '30s',
  freshApproval: 'always',
  onDeferral: 'fail',
});

const invalid = (code, message) => new CommandError(EXIT.invalid, code, message);

/** The default scope: the same API, repository, workflow file (at its ref) and job. */
export function defaultScope(env = process.env) {
  return {
    api: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, ''),
    repository: env.GITHUB_REPOSITORY || null,
    workflow: env.GITHUB_WORKFLOW_REF || null,
    job: env.GITHUB_JOB || null,
  };
}

/** Inline JSON (starts with `{`) or a path to a file holding it. */
function inlineOrFile(text, what) {
  if (text.trimStart().startsWith('{')) return text;
  return readBounded(text, `${what} file`).toString('utf8');
}

/** The canonical JSON text of an input as the core reads it (kind scope, request or plan). */
function canonical(kind, text) {
  const result = digest(kind, text);
  if (!result.ok) throw invalid(`invalid-${kind}`, `the ${kind} is not valid: ${result.error.message}`);
  return result.canonical;
}

function duration(text, name) {
  const ms = parseDuration(text);
  if (ms === undefined) throw invalid('invalid-duration', `${name} must be a duration like 60, 90s, 15m or 6h`);
  return ms;
}

function oneOf(value, allowed, name) {
  const v = value.toLowerCase();
  if (!allowed.includes(v)) throw invalid(`invalid-${name}`, `${name} must be ${allowed.join(' or ')}`);
  return v;
}

/**
 * @param raw {restReserve, graphqlReserve, plan, scope, request, resumeBuffer, resumeWindow, resumeJitter,
 *   freshApproval, approval, onDeferral}: strings or undefined (undefined = default).
 * @returns {{policy, scopeJson, requestJson, planJson, freshApprovalRequired, approvalGranted,
 *   onDeferral}} JSON fields are canonical text, ready to embed.
 */
export function buildGateOptions(raw, env = process.env) {
  const policy = {
    rest_reserve: raw.restReserve ?? DEFAULTS.restReserve,
    graphql_reserve: raw.graphqlReserve ?? DEFAULTS.graphqlReserve,
    resume_buffer_ms: duration(raw.resumeBuffer ?? DEFAULTS.resumeBuffer, 'resume-buffer'),
    resume_window_ms: duration(raw.resumeWindow ?? DEFAULTS.resumeWindow, 'resume-window'),
    // Not bound into request_digest: spreading wake-ups must not change what the work is.
    jitter_max_ms: duration(raw.resumeJitter ?? DEFAULTS.resumeJitter, 'resume-jitter'),
  };
  const scopeText = raw.scope ?? JSON.stringify(defaultScope(env));
  const approval = raw.approval === undefined ? '' : oneOf(raw.approval, ['granted', 'none'], 'approval');
  return {
    policy,
    scopeJson: canonical('scope', scopeText),
    requestJson: raw.request === undefined ? null : canonical('request', raw.request),
    planJson: raw.plan === undefined ? null : canonical('plan', inlineOrFile(raw.plan, 'plan')),
    freshApprovalRequired: oneOf(raw.freshApproval ?? DEFAULTS.freshApproval, ['always', 'never'], 'fresh-approval') === 'always',
    approvalGranted: approval === 'granted',
    onDeferral: oneOf(raw.onDeferral ?? DEFAULTS.onDeferral, ['fail', 'succeed'], 'on-deferral'),
  };
}

/** The decision input as JSON text; canonical JSON fields are embedded as they are. */
export function decisionInputJson(options, { rate, ledger, nowMs, clockOffsetMs }) {
  const plain = JSON.stringify({
    rate,
    ledger: ledger ?? null,
    policy: options.policy,
    fresh_approval_required: options.freshApprovalRequired,
    now_ms: nowMs,
    clock_offset_ms: clockOffsetMs ?? null,
  });
  return `${plain.slice(0, -1)},"scope":${options.scopeJson},"request":${options.requestJson ?? 'null'},"plan":${options.planJson ?? 'null'}}`;
}
