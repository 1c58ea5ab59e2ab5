// Prints an attempt's result for the CLI: exactly one line of JSON on stdout (on deferral it
// carries the receipt as deferredReceipt), and a human verdict on stderr when stderr is a
// terminal or --verdict asks for it; --quiet turns the verdict off.
import { resultJson } from './result-view.js';
import { printLine } from './output.js';
import { verdictText } from './verdict.js';

export function printResult(result, flags = {}) {
  // Nothing is rewritten by substring: the view holds figures, codes and digests, never the
  // token, scope, request or repository.
  const view = resultJson(result);
  printLine(view);
  if (!flags.quiet && (flags.verdict || process.stderr.isTTY)) process.stderr.write(verdictText(view));
  return result.exit;
}
