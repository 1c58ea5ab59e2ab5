// What the demo's acts share: starting a stand-in (a child process that prints one JSON line
// when it listens) and running deferral-host on one store with a fixed environment.
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';

// Starts `node script ...args`, adds it to `children` (killed when the demo ends) and resolves
// with the JSON line it prints first.
export async function startStandIn(script, args, children, name) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return JSON.parse(await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', () => reject(new Error(`the ${name} exited early`)));
  }));
}

// `deferral-host --store STORE ARGS...` with `env` only: the result, with `json` the last line
// of stdout parsed (null when it is a table).
export function hostRunner(host, store, env) {
  return (...args) => {
    const run = spawnSync(host, ['--store', store, ...args], { encoding: 'utf8', env });
    if (run.error) throw run.error;
    let json = null;
    try { json = JSON.parse(run.stdout.trim().split('\n').at(-1)); } catch { /* a table */ }
    return { ...run, json };
  };
}
