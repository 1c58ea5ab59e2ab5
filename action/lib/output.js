// One line of JSON on stdout per command: the contract every caller parses.
export function printLine(value) {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export function printError(err) {
  const error = { code: err.code ?? 'internal-error', message: err.message };
  if (err.path) error.path = err.path;
  printLine({ status: 'error', error });
}
