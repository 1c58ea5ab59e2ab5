// Reads a file argument, or standard input for "-", as raw bytes.
import { builtin } from './builtin.js';
import { CommandError, EXIT } from './exit-codes.js';

const { readFileSync } = builtin('node:fs');

export function readFileArg(path, what) {
  if (!path) throw new CommandError(EXIT.invalid, 'missing-argument', `give the ${what} as a file path, or - for standard input`);
  try {
    return readFileSync(path === '-' ? 0 : path);
  } catch (err) {
    throw new CommandError(EXIT.invalid, 'unreadable-file', `cannot read ${path === '-' ? 'standard input' : path}: ${err.code ?? err.message}`);
  }
}
