// deferral explain FILE|-: a receipt described for a person.
import { runCommand } from '../lib/core.js';
import { parseArgs } from '../lib/args.js';
import { readFileArg } from '../lib/read-input.js';
import { printAnswer } from '../lib/output.js';

export const help = `Usage: deferral explain FILE|- [--text] [--quiet]

Describes a deferred-receipt-v1 for a person: why the work stopped, when a fresh attempt may
start and until when (UTC and local time), how long until it is due, who owns the wake-up,
and whether fresh approval is required. Prints one JSON line
  {"status":"valid","state":"not-yet-due"|"due"|"expired","reason","explanation",...}
and the explanation as plain lines on stderr when stderr is a terminal, or with --text;
--quiet turns them off. stdout carries exactly the one JSON line.
Exit code: 0 for a valid receipt (whatever its state), 2 for an invalid one.`;

export function run(argv) {
  const { flags, positionals } = parseArgs(argv, { booleans: ['text', 'quiet'] });
  const human = !flags.quiet && (flags.text || process.stderr.isTTY);
  return printAnswer(runCommand('explain', readFileArg(positionals[0], 'receipt')), human);
}
