// deferral explain FILE|-: a receipt described for a person.
import { validateReceipt } from '../lib/core.js';
import { parseArgs } from '../lib/args.js';
import { readFileArg } from '../lib/read-input.js';
import { printLine } from '../lib/output.js';
import { EXIT } from '../lib/exit-codes.js';

export const help = `Usage: deferral explain FILE|- [--text] [--quiet]

Describes a deferred-receipt-v1 for a person: why the work stopped, when a fresh attempt may
start and until when (UTC and local time), how long until it is due, who owns the wake-up,
and whether fresh approval is required. Prints one JSON line
  {"status":"valid","state":"not-yet-due"|"due"|"expired","reason","explanation",...}
and the explanation as plain lines on stderr when stderr is a terminal, or with --text;
--quiet turns them off. stdout carries exactly the one JSON line.
Exit code: 0 for a valid receipt (whatever its state), 2 for an invalid one.`;

const REASONS = {
  'rest-reserve': 'the REST API quota (core) was at or below its reserve',
  'graphql-reserve': 'the GraphQL point quota was at or below its reserve',
  'provider-secondary-limit': 'GitHub answered with a secondary rate limit',
};

const pad = (n, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** `YYYY-MM-DD HH:MM:SS ±HH:MM` in the machine's time zone. */
function localTime(ms) {
  const d = new Date(ms);
  const offset = -d.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${sign}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`;
}

const utc = (ms) => new Date(ms).toISOString();

/** `2h 5m 3s`: a span for a person. */
export function span(ms) {
  let s = Math.round(ms / 1000);
  const parts = [];
  for (const [unit, size] of [['d', 86_400], ['h', 3600], ['m', 60]]) {
    if (s >= size) { parts.push(`${Math.floor(s / size)}${unit}`); s %= size; }
  }
  if (s > 0 || parts.length === 0) parts.push(`${s}s`);
  return parts.join(' ');
}

function describe(r, now) {
  const state = now < r.resume_after_ms ? 'not-yet-due' : now > r.resume_by_ms ? 'expired' : 'due';
  const retained = r.ownership.disposition === 'retained';
  const when = {
    'not-yet-due': `It is not due yet: a fresh attempt may start in ${span(r.resume_after_ms - now)}.`,
    due: `It is due now; the window closes in ${span(r.resume_by_ms - now)}.`,
    expired: `It expired ${span(now - r.resume_by_ms)} ago: it can no longer resume; start the work afresh.`,
  }[state];
  const lines = [
    `Deferred because ${REASONS[r.reason]} (${r.reason}).`,
    `Issued:        ${utc(r.issued_at_ms)} (local ${localTime(r.issued_at_ms)})`,
    `Resume after:  ${utc(r.resume_after_ms)} (local ${localTime(r.resume_after_ms)})`,
    `Resume by:     ${utc(r.resume_by_ms)} (local ${localTime(r.resume_by_ms)})`,
    when,
    retained
      ? 'Ownership: retained by a durable host, which wakes it; only the holder of the wake-up handle can claim it.'
      : 'Ownership: handoff; whoever resumes it must provide its own exclusivity (e.g. a workflow concurrency group).',
    r.fresh_approval_required
      ? 'Fresh approval is required before the work resumes.'
      : 'No fresh approval is required.',
  ];
  return {
    status: 'valid',
    state,
    reason: r.reason,
    issuedAt: { utc: utc(r.issued_at_ms), local: localTime(r.issued_at_ms) },
    resumeAfter: { utc: utc(r.resume_after_ms), local: localTime(r.resume_after_ms) },
    resumeBy: { utc: utc(r.resume_by_ms), local: localTime(r.resume_by_ms) },
    dueInMs: Math.max(0, r.resume_after_ms - now),
    ownership: { disposition: r.ownership.disposition, mode: r.ownership.mode },
    freshApprovalRequired: r.fresh_approval_required,
    bindings: r.bindings,
    explanation: lines.join('\n'),
  };
}

export function run(argv) {
  const { flags, positionals } = parseArgs(argv, { booleans: ['text', 'quiet'] });
  const human = !flags.quiet && (flags.text || process.stderr.isTTY);
  const result = validateReceipt(readFileArg(positionals[0], 'receipt'));
  if (!result.ok) {
    printLine({ status: 'invalid', error: result.error });
    if (human) process.stderr.write(`Not a valid deferred-receipt-v1: ${result.error.code} at ${result.error.path}: ${result.error.message}\n`);
    return EXIT.invalid;
  }
  const view = describe(result.receipt, Date.now());
  printLine(view);
  if (human) process.stderr.write(`${view.explanation}\n`);
  return EXIT.ok;
}
