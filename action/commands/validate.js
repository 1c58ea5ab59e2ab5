// deferral validate FILE|-: strict check of a deferred-receipt-v1.
import { validateReceipt } from '../lib/core.js';
import { parseArgs } from '../lib/args.js';
import { readFileArg } from '../lib/read-input.js';
import { printLine } from '../lib/output.js';
import { EXIT } from '../lib/exit-codes.js';

export const help = `Usage: deferral validate FILE|-

Checks a deferred-receipt-v1 strictly (exact fields, types, times, window, digests, ownership)
and prints one JSON line:
  valid:    {"status":"valid","receipt":{...normalised receipt...}}
  invalid:  {"status":"invalid","error":{"code":"...","path":"$....","message":"..."}}
Exit code: 0 valid, 2 invalid (or unreadable input).`;

export function run(argv) {
  const { positionals } = parseArgs(argv, {});
  const result = validateReceipt(readFileArg(positionals[0], 'receipt'));
  if (result.ok) {
    printLine({ status: 'valid', receipt: result.receipt });
    return EXIT.ok;
  }
  printLine({ status: 'invalid', error: result.error });
  return EXIT.invalid;
}
