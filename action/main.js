// The Action's entry (action.yml runs dist/main.js): the core reads the inputs (INPUT_*), runs
// the gate, or the resume when a receipt is given, and says what to mask, print and write
// (driver/src/run.rs). Every outcome, failures included, ends in the same few lines.
//
// The runner starts this file with `node dist/main.js`, and it runs at once. A tool that imports
// it instead (GitHub's `@github/local-action` imports the entry and calls its `run()`) gets
// `run()` and nothing else: it runs once, when called.
import { builtin } from './lib/builtin.js';
import { runAttempt } from './lib/attempt.js';

const { realpathSync } = builtin('node:fs');
const { fileURLToPath } = builtin('node:url');

/** Runs the Action once; sets the exit code the step ends with and answers the core's last step. */
export async function run() {
  const done = await runAttempt({ surface: 'action' });
  process.exitCode = done.process_exit;
  return done;
}

/** True when Node was started on this file (symbolic links followed), not when it is imported. */
function startedHere() {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (startedHere()) await run();
