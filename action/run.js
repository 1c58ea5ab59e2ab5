// The Action: read the inputs, mask the secrets, let the core run the attempt (gate, or resume
// when a receipt is given), then set what it answers: outputs, summary, log lines and the step
// result. Every outcome, failures included, ends in the same few lines.
import { builtin } from './lib/builtin.js';
import { runAttempt } from './lib/attempt.js';
import { appendSummary, mask, setOutputs } from './lib/runner.js';

const { tmpdir } = builtin('node:os');
const { EOL } = builtin('node:os');

// Every input the Action reads, by its action.yml name (INPUT_ plus the name upper-cased).
const INPUTS = ['token', 'rest-reserve', 'graphql-reserve', 'plan', 'scope', 'request', 'receipt', 'resume-buffer',
  'resume-window', 'resume-jitter', 'fresh-approval', 'approval', 'on-deferral', 'ledger-file',
  'coordinator-url', 'coordinator-token', 'coordinator-launch'];

export async function run(env = process.env) {
  const inputs = Object.fromEntries(INPUTS.map((name) => [name, env[`INPUT_${name.toUpperCase()}`]?.trim() ?? '']));
  // Masks first: nothing may print before the runner knows what to hide. The scope, request and
  // repository are never printed at all (only their digests), so nothing is redacted later.
  for (const secret of [inputs.token, inputs['coordinator-token'], env.DEFERRAL_WAKEUP_HANDLE]) mask(secret);
  const done = await runAttempt({
    command: inputs.receipt ? 'resume' : 'gate', surface: 'action', inputs, env, token: inputs.token,
    tempDir: env.RUNNER_TEMP || tmpdir(),
  });
  setOutputs(done.outputs, env);
  appendSummary(done.summary, env);
  for (const line of done.commands) process.stdout.write(`${line}${EOL}`);
  process.exitCode = done.failed ? 1 : 0;
}
