// Prints an attempt's result for the CLI: one line of redacted JSON. When deferred, the new
// receipt itself follows as the last line, because a durable host's exec launcher (deferral-host)
// reads the last JSON line of stdout as the receipt and validates it strictly.
import { resultJson } from './result-view.js';
import { redactValue } from './redact.js';
import { printLine } from './output.js';

export function printResult(result, secrets) {
  const view = redactValue(resultJson(result), secrets);
  printLine(view);
  if (view.deferredReceipt) printLine(view.deferredReceipt);
  return result.exit;
}
