// Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: the
// browser reads commands on fd 3 and writes answers and events on fd 4, each a JSON text ended
// by a NUL byte), so no debugging port is opened. The few calls the browser tests need: send a
// command, wait for an event, stop the browser.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';

/** Starts Chromium with a fresh profile under `dir`; answers the client. */
export async function launchChromium(dir, binary = process.env.CHROMIUM ?? 'chromium') {
  const child = spawn(binary, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    `--user-data-dir=${mkdtempSync(join(dir, 'profile-'))}`, '--remote-debugging-pipe', 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  const spawned = await new Promise((resolve) => {
    child.once('spawn', () => resolve(null));
    child.once('error', resolve);
  });
  if (spawned?.code === 'ENOENT') {
    throw new Error(`${binary} is not installed: apt-get install chromium (Debian), or set CHROMIUM to a Chromium binary`);
  }
  if (spawned) throw spawned;
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const pending = new Map();
  const events = [];
  const listeners = [];
  const waiters = [];
  let nextId = 1;
  let buffered = Buffer.alloc(0);
  child.stdio[4].on('data', (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (let end = buffered.indexOf(0); end >= 0; end = buffered.indexOf(0)) {
      const message = JSON.parse(buffered.subarray(0, end).toString('utf8'));
      buffered = buffered.subarray(end + 1);
      if (message.id !== undefined) {
        const call = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) call?.reject(new Error(`${call.method}: ${JSON.stringify(message.error)}`));
        else call?.resolve(message.result);
      } else {
        events.push(message);
        for (const w of [...waiters]) {
          if (w.match(message)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(message);
          }
        }
        for (const listener of listeners) listener(message);
      }
    }
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  exited.then(() => {
    for (const call of pending.values()) call.reject(new Error(`chromium exited: ${stderr}`));
  });
  return {
    events,
    stderr: () => stderr,
    /** Sends `method` with `params` (to a page's `sessionId` when given); answers its result. */
    send(method, params = {}, sessionId = undefined) {
      const id = nextId++;
      const message = JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) });
      return new Promise((resolve, reject) => {
        pending.set(id, { method, resolve, reject });
        child.stdio[3].write(`${message}\0`);
      });
    },
    /** Calls `listener(event)` for every event from now on. */
    on(listener) { listeners.push(listener); },
    /** How many events have come so far (for `waitFor`'s `since`). */
    mark() { return events.length; },
    /** The first event after the first `since` for which `match(event)` holds; fails after `ms`. */
    waitFor(match, ms, what, since = 0) {
      const seen = events.slice(since).find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms: ${stderr}`)), ms);
        waiters.push({ match, resolve: (e) => { clearTimeout(timer); resolve(e); } });
      });
    },
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
