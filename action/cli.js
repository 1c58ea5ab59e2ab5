#!/usr/bin/env node
// deferral: the command-line face of the Deferral core. Each command lives in commands/NAME.js
// and exports `help` and `run(argv) -> exit code`; every failure ends here, as one JSON line.
import { EXIT, CommandError } from './lib/exit-codes.js';
import { printError } from './lib/output.js';

const COMMANDS = {
  gate: 'Check the rate state before a batch; ready, or deferred with a receipt.',
  resume: 'Run the fresh resume preflight for a receipt, then the gate.',
  validate: 'Check a deferred-receipt-v1 strictly.',
  digest: 'SHA-256 of the RFC 8785 canonical JSON of an input.',
  explain: 'Describe a receipt for a person.',
  observe: 'Record a response\'s rate-limit headers into the ledger.',
};

const USAGE = `Usage: deferral COMMAND [ARGS] (deferral COMMAND --help for details)

Commands:
${Object.entries(COMMANDS).map(([name, what]) => `  ${name.padEnd(9)} ${what}`).join('\n')}

Output: exactly one line of JSON on stdout; human text only on stderr.
Exit codes: 0 ready/valid, 2 invalid input, 3 authentication, 4 provider or transport failure,
5 blocked, 6 deferred.`;

async function main(argv) {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  if (!name) {
    process.stderr.write(`${USAGE}\n`);
    throw new CommandError(EXIT.invalid, 'missing-command', 'give a command; run deferral --help');
  }
  if (!(name in COMMANDS)) {
    throw new CommandError(EXIT.invalid, 'unknown-command', `unknown command ${JSON.stringify(name)}; run deferral --help`);
  }
  let command;
  try {
    command = await import(`./commands/${name}.js`);
  } catch (err) {
    if (err.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new CommandError(EXIT.invalid, 'unknown-command', `command ${name} is not available in this build`);
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.help}\n`);
    return EXIT.ok;
  }
  return await command.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    printError(err instanceof CommandError ? err : { code: 'internal-error', message: String(err?.message ?? err) });
    process.exitCode = err instanceof CommandError ? err.exit : EXIT.provider;
  },
);
