// deferral observe: records what one GitHub response says about the rate state into the ledger.
import { call } from '../lib/core.js';
import { parseArgs } from '../lib/args.js';
import { readBounded } from '../lib/read-input.js';
import { printLine } from '../lib/output.js';
import { CommandError, EXIT } from '../lib/exit-codes.js';
import { withLedgerLock } from '../lib/ledger-file.js';

export const help = `Usage: deferral observe --ledger-file FILE (--response FILE|- | --status N --header "name: value" ... [--body FILE]) [--path PATH]

Records one GitHub response into the shared deferral-ledger-v1 file, under its lock: the
x-ratelimit-* window (within one window remaining only goes down; a later window replaces an
earlier one), every bucket of a GET /rate_limit answer, the server clock offset from date, and
a secondary-limit strike (a hold of at least 60 s or retry-after, doubling on consecutive
strikes). A 401's headers describe the anonymous bucket, not the token's: they are not recorded.
A later deferral gate or the Action with the same ledger file decides with it.
  --response FILE|-   a response as curl -i or gh api -i print it (status line, headers, body)
  --status N          the HTTP status, with --header (repeatable) and optionally --body FILE
  --path PATH         the request's path (/search/code, /graphql, ...): names the bucket when
                      the answer has no x-ratelimit-resource header (default core)
Prints {"status":"recorded","kind":"primary-rest"|"primary-graphql"|"secondary"|"unlimited"|
"not-rate-limited","resource","remaining","reset","buckets","secondaryHoldUntil"}.
Exit code: 0 recorded, 2 invalid input.`;

function responseFrom(flags) {
  if (flags.response !== undefined) return { text: readBounded(flags.response, 'response').toString('utf8') };
  const status = Number(flags.status);
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new CommandError(EXIT.invalid, 'missing-argument', 'give --response FILE, or --status N with --header "name: value"');
  }
  const headers = (flags.header ?? []).map((h) => {
    const colon = h.indexOf(':');
    if (colon < 1) throw new CommandError(EXIT.invalid, 'invalid-header', 'a --header must look like "name: value"');
    return [h.slice(0, colon).trim(), h.slice(colon + 1).trim()];
  });
  const body = flags.body === undefined ? '' : readBounded(flags.body, 'body').toString('utf8');
  return { status, headers, body };
}

export function run(argv) {
  const { flags } = parseArgs(argv, { values: ['ledger-file', 'response', 'status', 'body', 'path'], lists: ['header'] });
  if (!flags['ledger-file']) throw new CommandError(EXIT.invalid, 'missing-argument', 'give --ledger-file FILE');
  const response = { ...responseFrom(flags), path: flags.path ?? null };
  const now = Date.now();
  const observed = withLedgerLock(flags['ledger-file'], (text) => {
    const answer = call('observe_response', { ledger: text, ...response, now_ms: now });
    if (!answer.ok) throw new CommandError(EXIT.invalid, answer.error.code, answer.error.message, answer.error.path);
    return [answer, `${JSON.stringify(answer.ledger)}\n`];
  });
  const h = observed.headers;
  printLine({
    status: 'recorded',
    kind: observed.kind,
    resource: observed.resource,
    remaining: observed.resource ? h.remaining : null,
    reset: observed.resource ? h.reset : null,
    retryAfterS: observed.retry_after_s,
    buckets: observed.buckets,
    secondaryHoldUntil: observed.hold_until_ms == null ? null : new Date(observed.hold_until_ms).toISOString(),
  });
  return EXIT.ok;
}
