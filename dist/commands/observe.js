// deferral observe: records what one GitHub response says about the rate state into the ledger.
import { builtin } from '../lib/builtin.js';
import { call } from '../lib/core.js';
import { parseArgs } from '../lib/args.js';
import { readFileArg } from '../lib/read-input.js';
import { printLine } from '../lib/output.js';
import { CommandError, EXIT } from '../lib/exit-codes.js';
import { updateLedger } from '../lib/ledger-file.js';
import { parseResponseText } from '../lib/http-response-text.js';

const { readFileSync } = builtin('node:fs');

export const help = `Usage: deferral observe --ledger-file FILE (--response FILE|- | --status N --header "name: value" ... [--body FILE])

Records one GitHub response into the shared deferral-ledger-v1 file, under its lock: the
x-ratelimit-* window (within one window remaining only goes down; a later window replaces an
earlier one), the server clock offset from date, and a secondary-limit strike (a hold of at
least 60 s or retry-after, doubling on consecutive strikes). A later deferral gate or the
Action with the same ledger file decides with it.
  --response FILE|-   a response as curl -i or gh api -i print it (status line, headers, body)
  --status N          the HTTP status, with --header (repeatable) and optionally --body FILE
Prints {"status":"recorded","kind":"primary-rest"|"primary-graphql"|"secondary"|"unlimited"|
"not-rate-limited","resource","remaining","reset","secondaryHoldUntil"}.
Exit code: 0 recorded, 2 invalid input.`;

function responseFrom(flags) {
  if (flags.response !== undefined) {
    const parsed = parseResponseText(readFileArg(flags.response, 'response').toString('utf8'));
    if (!parsed) throw new CommandError(EXIT.invalid, 'invalid-response', 'the response does not start with an HTTP status line (save it with curl -i or gh api -i)');
    return parsed;
  }
  const status = Number(flags.status);
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new CommandError(EXIT.invalid, 'missing-argument', 'give --response FILE, or --status N with --header "name: value"');
  }
  const headers = (flags.header ?? []).map((h) => {
    const colon = h.indexOf(':');
    if (colon < 1) throw new CommandError(EXIT.invalid, 'invalid-header', 'a --header must look like "name: value"');
    return [h.slice(0, colon).trim(), h.slice(colon + 1).trim()];
  });
  let body = '';
  if (flags.body !== undefined) {
    try { body = readFileSync(flags.body === '-' ? 0 : flags.body, 'utf8'); } catch (err) {
      throw new CommandError(EXIT.invalid, 'unreadable-file', `cannot read the body file: ${err.code ?? err.message}`);
    }
  }
  return { status, headers, body };
}

export function run(argv) {
  const { flags } = parseArgs(argv, { values: ['ledger-file', 'response', 'status', 'body'], lists: ['header'] });
  if (!flags['ledger-file']) throw new CommandError(EXIT.invalid, 'missing-argument', 'give --ledger-file FILE');
  const response = responseFrom(flags);
  const now = Date.now();
  let observed;
  const ledger = updateLedger(flags['ledger-file'], {
    apply: (current) => {
      observed = call('observe_response', { ledger: current, ...response, now_ms: now });
      if (!observed.ok) throw new CommandError(EXIT.invalid, observed.error.code, observed.error.message, observed.error.path);
      return observed.ledger;
    },
  });
  const h = observed.headers;
  const hold = ledger.secondary && ledger.secondary.until_ms > now ? new Date(ledger.secondary.until_ms).toISOString() : null;
  printLine({
    status: 'recorded',
    kind: observed.kind,
    resource: h.limit != null && h.remaining != null && h.reset != null ? (h.resource ?? 'core') : null,
    remaining: h.remaining ?? null,
    reset: h.reset ?? null,
    retryAfterS: h.retry_after_s ?? null,
    secondaryHoldUntil: hold,
  });
  return EXIT.ok;
}
