// One line of JSON on stdout per command: the contract every caller parses.

// A reader that stops early (`deferral gate ... | head -1`) is not an error of ours: keep the
// exit code the command chose instead of crashing on EPIPE.
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE') throw err;
});

export function printLine(value) {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export function printError(err) {
  const error = { code: err.code ?? 'internal-error', message: err.message };
  if (err.path) error.path = err.path;
  printLine({ status: 'error', error });
}
