// deferral digest [--kind value|scope|request|plan] JSON: SHA-256 of RFC 8785 canonical JSON.
import { runCommand } from '../lib/core.js';
import { parseArgs } from '../lib/args.js';
import { printAnswer } from '../lib/output.js';
import { CommandError, EXIT } from '../lib/exit-codes.js';
import { readBounded } from '../lib/read-input.js';

export const help = `Usage: deferral digest [--kind value|scope|request|plan] (JSON | --file FILE|-)

Prints {"kind","digest"}: digest is the lowercase hex SHA-256 of the RFC 8785 (JCS)
canonical form of the input, the same digest receipts carry in their bindings.
  --kind value    the input must be JSON (default)
  --kind scope    JSON if it parses, else the text as a JSON string (like the scope input)
  --kind request  the same rule, for the request input
  --kind plan     a plan document (a JSON object)
Exit code: 0, or 2 when the input does not fit its kind.`;

export function run(argv) {
  const { flags, positionals } = parseArgs(argv, { values: ['kind', 'file'] });
  const kind = flags.kind ?? 'value';
  const text = flags.file !== undefined ? readBounded(flags.file, 'input').toString('utf8') : positionals[0];
  if (text === undefined) throw new CommandError(EXIT.invalid, 'missing-argument', 'give the JSON to digest, or --file FILE');
  return printAnswer(runCommand('digest', Buffer.from(text, 'utf8'), kind), false);
}
