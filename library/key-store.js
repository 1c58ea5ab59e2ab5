// Where a durable port keeps the raw cancellation handles it was given: a caller-provided store
// ({get, set} by receipt digest), by default files on this machine readable by this user only.
// One 0600 JSON file per receipt digest in a 0700 directory: writers of different receipts never
// touch the same file, and each file is replaced whole (temporary file, then rename).
import { builtin } from '../shared/builtin.js';
import { ask } from './ask.js';

const { mkdirSync, readFileSync, renameSync, writeFileSync } = builtin('node:fs');
const { homedir } = builtin('node:os');
const { join } = builtin('node:path');
const { randomBytes } = builtin('node:crypto');

/** The default folder: $XDG_STATE_HOME/deferral/handles, else ~/.local/state/deferral/handles. */
export function defaultKeyStoreDir(env = process.env) {
  const state = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(state, 'deferral', 'handles');
}

/** A key is a receipt digest (the core's check), so it names a file in `dir` and nothing else. */
function checkedKey(key) {
  ask('store_key', { key: key ?? null });
  return key;
}

/** createFileKeyStore(dir?) answers {dir, get(key), set(key, value)}; values are JSON. */
export function createFileKeyStore(dir = defaultKeyStoreDir()) {
  const file = (key) => join(dir, `${checkedKey(key)}.json`);
  return {
    dir,
    async get(key) {
      let text;
      try {
        text = readFileSync(file(key), 'utf8');
      } catch (err) {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      }
      return JSON.parse(text);
    },
    async set(key, value) {
      const target = file(key);
      mkdirSync(dir, { recursive: true, mode: 0o700 }); // a folder made here is this user's only
      const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
      writeFileSync(temporary, `${JSON.stringify(value)}\n`, { mode: 0o600, flag: 'wx' });
      renameSync(temporary, target);
    },
  };
}
