// Reads a file, or standard input for "-", as raw bytes, never more than one byte past a limit
// the core gives (so `validate /dev/zero` ends; the core names the input too large).
import { builtin } from './builtin.js';

const { openSync, readSync, closeSync } = builtin('node:fs');

/** A failure of the shell's own I/O, described as facts for the core to word. */
export class IoError extends Error {
  constructor(facts) {
    super(facts.detail ?? facts.op);
    this.facts = facts;
  }
}

/** At most `limit + 1` bytes of `path` (or stdin for "-"). */
export function readUpTo(path, limit) {
  const buffer = Buffer.allocUnsafe(limit + 1);
  let size = 0;
  let fd = 0;
  try {
    if (path !== '-') fd = openSync(path, 'r');
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
  } catch (err) {
    throw new IoError({ op: 'read', path, detail: err.code ?? err.message });
  } finally {
    if (fd !== 0) closeSync(fd);
  }
  return buffer.subarray(0, size);
}
