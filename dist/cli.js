#!/usr/bin/env node
// deferral: the command-line face of the Deferral core. The core parses the arguments, says
// what to read and ask, and words every answer (driver/src/run.rs): one JSON line on stdout.
import { runAttempt } from './lib/attempt.js';

// A reader that stops early (`deferral gate ... | head -1`) is not an error of ours: keep the
// exit code the command chose instead of crashing on EPIPE.
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE') throw err;
});

const done = await runAttempt({ surface: 'cli', argv: process.argv.slice(2) });
process.exitCode = done.process_exit;
