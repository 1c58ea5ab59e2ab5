// deferral validate FILE|-: strict check of a deferred-receipt-v1.
import { runCommand } from '../lib/core.js';
import { parseArgs } from '../lib/args.js';
import { readFileArg } from '../lib/read-input.js';
import { printAnswer } from '../lib/output.js';

export const help = `Usage: deferral validate FILE|-

Checks a deferred-receipt-v1 strictly (exact fields, types, times, window, digests, ownership)
and prints one JSON line:
  valid:    {"status":"valid","receipt":{...normalised receipt...}}
  invalid:  {"status":"invalid","error":{"code":"...","path":"$....","message":"..."}}
A whole gate result is not a receipt: the message says to take its deferredReceipt.
Exit code: 0 valid, 2 invalid (or unreadable input).`;

export function run(argv) {
  const { positionals } = parseArgs(argv, {});
  return printAnswer(runCommand('validate', readFileArg(positionals[0], 'receipt')), false);
}
