// Reads a file argument, or standard input for "-", as raw bytes, never more than a limit: a
// reader stops one byte past it (so `validate /dev/zero` ends) and the input is `too-large`.
import { builtin } from './builtin.js';
import { CommandError, EXIT } from './exit-codes.js';

const { openSync, readSync, closeSync } = builtin('node:fs');

/** Largest plan, ledger, scope or rate state read (receipts stop at 16 KiB + 1: see validate). */
export const MAX_INPUT_BYTES = 1 << 20;
/** Receipts: one byte past the contract's 16 KiB, so the core answers too-large itself. */
export const RECEIPT_READ_BYTES = 16 * 1024 + 1;

const where = (path) => (path === '-' ? 'standard input' : path);

/** At most `limit + 1` bytes of a file or stdin (the extra byte shows the input is too large). */
function readUpTo(path, limit) {
  const fd = path === '-' ? 0 : openSync(path, 'r');
  const buffer = Buffer.allocUnsafe(limit + 1);
  let size = 0;
  try {
    while (size < buffer.length) {
      let n;
      try {
        n = readSync(fd, buffer, size, buffer.length - size, null);
      } catch (err) {
        if (err.code === 'EAGAIN') continue; // a non-blocking stdin with nothing yet
        if (err.code === 'EOF') break;
        throw err;
      }
      if (n === 0) break;
      size += n;
    }
  } finally {
    if (fd !== 0) closeSync(fd);
  }
  return buffer.subarray(0, size);
}

/**
 * Reads `path` (or stdin for "-"), answering its bytes. Past `limit` bytes it throws
 * `too-large`, unless `allowOver`, which answers the `limit + 1` bytes read (for receipts, whose
 * validation names the size itself).
 */
export function readBounded(path, what, { limit = MAX_INPUT_BYTES, allowOver = false } = {}) {
  if (!path) throw new CommandError(EXIT.invalid, 'missing-argument', `give the ${what} as a file path, or - for standard input`);
  let bytes;
  try {
    bytes = readUpTo(path, limit);
  } catch (err) {
    throw new CommandError(EXIT.invalid, 'unreadable-file', `cannot read ${where(path)}: ${err.code ?? err.message}`);
  }
  if (bytes.length > limit && !allowOver) {
    throw new CommandError(EXIT.invalid, 'too-large', `the ${what} in ${where(path)} is larger than ${limit} bytes`);
  }
  return bytes;
}

/** A receipt file or stdin, read up to one byte past the contract's 16 KiB. */
export function readFileArg(path, what) {
  return readBounded(path, what, { limit: RECEIPT_READ_BYTES - 1, allowOver: true });
}
