// The Action's entry (action.yml runs dist/main.js): the core reads the inputs (INPUT_*), runs
// the gate, or the resume when a receipt is given, and says what to mask, print and write
// (core/src/run.rs). Every outcome, failures included, ends in the same few lines.
import { runAttempt } from './lib/attempt.js';

const done = await runAttempt({ surface: 'action' });
process.exitCode = done.process_exit;
