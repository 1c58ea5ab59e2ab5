// The flags `deferral gate` and `deferral resume` share, mirroring the Action's inputs, and the
// rate-state source they select: a saved file (--rate-state, no network) or one live request.
import { CommandError, EXIT } from './exit-codes.js';

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
  --rate-state FILE|-     a saved GET /rate_limit body: decide offline, no network
  --api-url URL           the API base (default GITHUB_API_URL, else https://api.github.com)
  --quiet                 no human verdict on stderr (printed when stderr is a terminal)
  --verdict               the human verdict on stderr even when it is not a terminal
Live mode reads the token from GITHUB_TOKEN or GH_TOKEN and makes exactly one request,
GET /rate_limit (free of primary quota), through HTTPS_PROXY/HTTP_PROXY unless NO_PROXY says not.`;

/** Raw gate options (strings or undefined) from parsed flags. */
export function rawOptions(flags) {
  return {
    restReserve: flags['rest-reserve'],
    graphqlReserve: flags['graphql-reserve'],
    plan: flags.plan,
    scope: flags.scope,
    request: flags.request,
    resumeBuffer: flags['resume-buffer'],
    resumeWindow: flags['resume-window'],
    resumeJitter: flags['resume-jitter'],
    freshApproval: flags['fresh-approval'],
    approval: flags.approval,
  };
}

/** Where the rate state comes from: {file} offline, or {token, env} live. */
export function rateSource(flags, env = process.env) {
  if (flags['rate-state'] !== undefined) return { file: flags['rate-state'] };
  const token = env.GITHUB_TOKEN || env.GH_TOKEN;
  if (!token) {
    throw new CommandError(EXIT.auth, 'missing-token', 'no token: set GITHUB_TOKEN or GH_TOKEN, or pass --rate-state FILE to decide offline');
  }
  const apiEnv = flags['api-url'] ? { ...env, GITHUB_API_URL: flags['api-url'] } : env;
  return { token, env: apiEnv };
}
