// The flags `deferral gate` and `deferral resume` share, mirroring the Action's inputs, and the
// printing of the core's answer. The core reads the flags (core/src/attempt/inputs.rs).

export const GATE_FLAGS = ['rest-reserve', 'graphql-reserve', 'plan', 'scope', 'request', 'resume-buffer',
  'resume-window', 'resume-jitter', 'fresh-approval', 'approval', 'ledger-file', 'rate-state', 'api-url'];

/** Output flags: --quiet (no verdict on stderr), --verdict (the verdict even off a terminal). */
export const OUTPUT_FLAGS = ['quiet', 'verdict'];

export const GATE_FLAGS_HELP = `  --rest-reserve N|P%     keep this much of the REST limit (default 10%)
  --graphql-reserve N|P%  keep this much of the GraphQL limit (default 10%)
  --plan FILE|JSON        the plan document (docs/plan.md); bound as plan_digest
  --scope TEXT|JSON       what the work is bound to (default: GITHUB_API_URL, GITHUB_REPOSITORY,
                          GITHUB_WORKFLOW_REF, GITHUB_JOB as in the Action)
  --request TEXT|JSON     the request bound into request_digest (default null)
  --resume-buffer D       added after the reset (default 60s; 90, 90s, 15m, 1h)
  --resume-window D       how long a receipt stays resumable (default 6h, at most 24h in all)
  --resume-jitter D       most deterministic jitter added to resume-after (default 30s; 0s for none)
  --fresh-approval always|never   fresh_approval_required in receipts this run emits (default always)
  --approval granted      this run has fresh approval (resume)
  --ledger-file FILE      the shared deferral-ledger-v1 file: read, updated under a lock
  --rate-state FILE|-     a saved GET /rate_limit answer (body, or gh api -i with headers):
                          decide offline, no network
  --api-url URL           the API base (default GITHUB_API_URL, else https://api.github.com)
  --quiet                 no human verdict on stderr (printed when stderr is a terminal)
  --verdict               the human verdict on stderr even when it is not a terminal
Live mode reads the token from GITHUB_TOKEN or GH_TOKEN and makes exactly one request,
GET /rate_limit (free of primary quota), through HTTPS_PROXY/HTTP_PROXY unless NO_PROXY says not.`;

/** Prints the core's answer: its one JSON line, and the verdict on stderr when wanted. */
export function printDone(done, flags) {
  process.stdout.write(`${done.line}\n`);
  if (!flags.quiet && (flags.verdict || process.stderr.isTTY)) process.stderr.write(done.verdict);
  return done.exit;
}
