// deferral resume: the fresh resume preflight of a receipt, then the gate, in a fresh process.
import { parseArgs } from '../lib/args.js';
import { GATE_FLAGS, GATE_FLAGS_HELP, OUTPUT_FLAGS, printDone } from '../lib/gate-flags.js';
import { runAttempt } from '../lib/attempt.js';

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
  // The token is only used once the checks that need no rate state pass.
  const token = env.GITHUB_TOKEN || env.GH_TOKEN;
  return printDone(await runAttempt({ command: 'resume', surface: 'cli', inputs: flags, env, token }), flags);
}
