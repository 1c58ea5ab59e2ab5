// The gate's own temporary folder (the receipt and the cancellation handle): created 0700 when
// missing, and used only when it is a directory (not a link) of this user that no one else may
// write, so another user of a shared TMPDIR can neither plant files there nor keep us out.
import { builtin } from './builtin.js';
import { IoError } from './read-input.js';

const { lstatSync, mkdirSync } = builtin('node:fs');

/** Makes `dir` ready, or throws an IoError {op: 'folder', path, detail} saying why not. */
export function privateFolder(dir) {
  const refuse = (detail) => new IoError({ op: 'folder', path: dir, detail });
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw refuse(`cannot create it (${err.code ?? err.message})`);
  }
  if (process.platform === 'win32') return; // no owner or mode bits to check
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw refuse('it is not a directory (a link or a file is in its place)');
  const uid = process.getuid();
  if (st.uid !== uid) throw refuse(`it is owned by uid ${st.uid}, not by this user (uid ${uid})`);
  if ((st.mode & 0o022) !== 0) throw refuse(`others may write it (mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')})`);
}
