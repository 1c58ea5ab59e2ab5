// Reads the Action's inputs from INPUT_* variables and applies the same defaults as action.yml,
// so a missing or empty input means the default whichever way the entry is started.

/** The runner's variable for an input: upper-cased, spaces as `_`, hyphens kept. */
export const inputVariable = (name) => `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;

/** An input's trimmed value, or undefined when absent or empty. */
export function getInput(name, env = process.env) {
  const value = env[inputVariable(name)];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Every input the entry reads, as the shared options of a gate or resume attempt. */
export function readActionInputs(env = process.env) {
  const input = (name) => getInput(name, env);
  return {
    token: input('token'),
    restReserve: input('rest-reserve'),
    graphqlReserve: input('graphql-reserve'),
    plan: input('plan'),
    scope: input('scope'),
    request: input('request'),
    receipt: input('receipt'),
    resumeBuffer: input('resume-buffer'),
    resumeWindow: input('resume-window'),
    resumeJitter: input('resume-jitter'),
    freshApproval: input('fresh-approval'),
    approval: input('approval'),
    onDeferral: input('on-deferral'),
    ledgerFile: input('ledger-file'),
    coordinatorUrl: input('coordinator-url'),
    coordinatorToken: input('coordinator-token'),
    coordinatorLaunch: input('coordinator-launch'),
  };
}
