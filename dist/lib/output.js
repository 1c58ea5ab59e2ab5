// One line of JSON on stdout per command: the contract every caller parses. Human text goes to
// stderr, only on a terminal or when asked for.

// A reader that stops early (`deferral gate ... | head -1`) is not an error of ours: keep the
// exit code the command chose instead of crashing on EPIPE.
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE') throw err;
});

export function printLine(value) {
  process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
}

export function printError(err) {
  const error = { code: err.code ?? 'internal-error', message: err.message };
  if (err.path) error.path = err.path;
  printLine({ status: 'error', error });
}

/** Prints a core answer {exit, line, text}: the line on stdout, the text on stderr if wanted. */
export function printAnswer(answer, human) {
  printLine(answer.line);
  if (human && answer.text) process.stderr.write(answer.text);
  return answer.exit;
}
