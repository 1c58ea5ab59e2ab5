// Prints an attempt's result for the CLI: exactly one line of JSON on stdout (on deferral it
// carries the receipt as deferredReceipt), and a human verdict on stderr when stderr is a
// terminal or --verdict asks for it; --quiet turns the verdict off.
import { resultJson } from './result-view.js';
import { redactValue } from './redact.js';
import { printLine } from './output.js';
import { verdictText } from './verdict.js';

export function printResult(result, secrets, flags = {}) {
  const view = redactValue(resultJson(result), secrets);
  printLine(view);
  if (!flags.quiet && (flags.verdict || process.stderr.isTTY)) process.stderr.write(verdictText(view));
  return result.exit;
}
