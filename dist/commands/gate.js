// deferral gate: may the work start now? ready (0), deferred with a receipt (6), blocked (5).
import { parseArgs } from '../lib/args.js';
import { GATE_FLAGS, GATE_FLAGS_HELP, OUTPUT_FLAGS, printDone } from '../lib/gate-flags.js';
import { runAttempt } from '../lib/attempt.js';

export const help = `Usage: deferral gate [FLAGS]

Reads the rate state once (GET /rate_limit, or --rate-state FILE), checks the planned cost
against what is left above the reserves, and prints one JSON line:
  {"status":"ready"|"deferred"|"blocked"|"error", "reason", "resumeAfter", "resumeBy", "rest",
   "graphql", "plan", "bindings", "diagnostics":[{code,message}], "deferredReceipt" (when deferred)}

${GATE_FLAGS_HELP}

Exit codes: 0 ready, 2 invalid input, 3 authentication, 4 provider or transport failure,
5 blocked, 6 deferred.`;

export async function run(argv, env = process.env) {
  const { flags } = parseArgs(argv, { values: GATE_FLAGS, booleans: OUTPUT_FLAGS });
  const token = env.GITHUB_TOKEN || env.GH_TOKEN;
  return printDone(await runAttempt({ command: 'gate', surface: 'cli', inputs: flags, env, token }), flags);
}
