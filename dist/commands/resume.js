// deferral resume: the fresh resume preflight of a receipt, then the gate, in a fresh process.
import { parseArgs } from '../lib/args.js';
import { buildGateOptions } from '../lib/gate-options.js';
import { GATE_FLAGS, GATE_FLAGS_HELP, OUTPUT_FLAGS, rateSource, rawOptions } from '../lib/gate-flags.js';
import { runResume } from '../lib/attempt.js';
import { printResult } from '../lib/print-result.js';
import { readFileArg } from '../lib/read-input.js';

export const help = `Usage: deferral resume --receipt FILE|- [--wakeup-handle H] [FLAGS]

The fresh resume preflight, in order: the receipt is valid (else exit 2), due
(not-yet-due / expired), claimed (retained receipts: the raw wake-up handle from
--wakeup-handle or DEFERRAL_WAKEUP_HANDLE must hash to wakeup_digest: claim-unavailable),
bound to the same work (scope, request and plan recomputed from the flags: binding-mismatch),
approved (--approval granted when the receipt requires it: approval-required); then the gate
on fresh rate state. Checks that need no rate state run first: a receipt that cannot resume
costs no request. Prints one JSON line like deferral gate, plus "ownership" and, for a
binding mismatch, "field"; when still limited, the new receipt is its deferredReceipt.

  --receipt FILE|-        the deferred-receipt-v1 (- reads standard input, as deferral-host's
                          exec launcher passes it)
  --wakeup-handle H       the raw wake-up handle of a retained receipt
${GATE_FLAGS_HELP}

Exit codes: 0 ready (the work may run), 2 invalid input or receipt, 3 authentication,
4 provider or transport failure, 5 blocked, 6 deferred again.`;

export async function run(argv, env = process.env) {
  const { flags } = parseArgs(argv, { values: [...GATE_FLAGS, 'receipt', 'wakeup-handle'], booleans: OUTPUT_FLAGS });
  const options = buildGateOptions(rawOptions(flags), env);
  options.ledgerFile = flags['ledger-file'];
  options.receiptBytes = readFileArg(flags.receipt, 'receipt (--receipt FILE or --receipt -)');
  options.wakeupHandle = flags['wakeup-handle'] ?? env.DEFERRAL_WAKEUP_HANDLE;
  const offline = flags['rate-state'] !== undefined;
  // The token is only needed once the offline checks pass; ask for it lazily.
  const source = offline ? { file: flags['rate-state'] } : lazySource(flags, env);
  const result = await runResume(options, source);
  return printResult(result, flags);
}

function lazySource(flags, env) {
  let resolved;
  const get = () => (resolved ??= rateSource(flags, env));
  return { get token() { return get().token; }, get env() { return get().env; } };
}
