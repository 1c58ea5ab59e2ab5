// The shared ledger file (deferral-ledger-v1): several steps or processes record what they saw
// of the rate state into one file. The core merges; this file only locks, reads and replaces. Updates hold an O_EXCL lock file and replace the data file
// atomically (write a temporary file, fsync, rename), so readers never see half a file and
// concurrent writers lose no observation: each merges into what is on disk under the lock, and
// the merge itself (in the core) is a join that cannot forget or regress.
import { builtin } from './builtin.js';
import { IoError, readUpTo } from './read-input.js';

const { closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync, linkSync } = builtin('node:fs');
// node:crypto only when a ledger is written: loading it costs every gate run 2-4 ms otherwise.
const randomBytes = (size) => builtin('node:crypto').randomBytes(size);
const { hostname } = builtin('node:os');

const pause = new Int32Array(new SharedArrayBuffer(4));
const sleepMs = (ms) => Atomics.wait(pause, 0, 0, ms);

function readText(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw new IoError({ op: 'ledger', detail: err.code ?? err.message });
  }
}

function ownerAlive(content) {
  const [host, pid] = content.split(' ');
  if (host !== hostname()) return true; // cannot tell for another machine: trust the age alone
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Removes a lock left by a crashed writer, if it still is the lock we judged stale. */
function breakStaleLock(lockPath, seen) {
  const aside = `${lockPath}.stale-${randomBytes(6).toString('hex')}`;
  try {
    renameSync(lockPath, aside); // atomic: only one breaker moves any given lock
  } catch {
    return;
  }
  const moved = readText(aside);
  if (moved !== seen) {
    // A live writer took the lock between our check and the rename: give it back.
    try { linkSync(aside, lockPath); } catch { /* a newer lock exists; ours was stale anyway */ }
  }
  try { unlinkSync(aside); } catch { /* already gone */ }
}

function acquire(lockPath, { wait_ms: waitMs, stale_ms: staleMs }) {
  const token = `${hostname()} ${process.pid} ${randomBytes(8).toString('hex')}`;
  const deadline = Date.now() + waitMs;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, token);
      closeSync(fd);
      return token;
    } catch (err) {
      if (err.code !== 'EEXIST') throw new IoError({ op: 'lock', detail: err.code });
    }
    const seen = readText(lockPath);
    let age = 0;
    try { age = Date.now() - statSync(lockPath).mtimeMs; } catch { continue; }
    if (seen !== null && seen !== '' && (!ownerAlive(seen) || age > staleMs)) {
      breakStaleLock(lockPath, seen);
      continue;
    }
    if (Date.now() > deadline) {
      throw new IoError({ op: 'lock-timeout', ms: waitMs });
    }
    // Lock holders keep it for a read, a merge and a rename: a few milliseconds.
    sleepMs(Math.min(50, 2 + attempt));
  }
}

function release(lockPath, token) {
  if (readText(lockPath) === token) {
    try { unlinkSync(lockPath); } catch { /* already broken as stale */ }
  }
}

function writeAtomically(path, text) {
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o644);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

/**
 * Holds the lock of `lock.path` (a step's `lock`: {path, limit, wait_ms, stale_ms}) around
 * `update(bytes | null) -> step`: the ledger as it is (null when it
 * does not exist yet) goes to the core, and the `ledger` text the step carries replaces the
 * file atomically before the lock is released. Answers the step.
 */
export function withLock(lock, update) {
  const { path } = lock;
  const lockPath = `${path}.lock`;
  const token = acquire(lockPath, lock);
  try {
    let bytes = null;
    try {
      bytes = readUpTo(path, lock.limit);
    } catch (err) {
      if (err.facts.detail !== 'ENOENT') throw new IoError({ op: 'ledger', detail: err.facts.detail });
    }
    const step = update(bytes);
    if (typeof step.ledger === 'string') writeAtomically(path, step.ledger);
    return step;
  } finally {
    release(lockPath, token);
  }
}
