// The GitHub Actions runner protocol, written by hand (no @actions/core): outputs and the job
// summary go to the files the runner names, masks go to stdout as commands. Annotations and log
// lines come from the core already escaped (core/src/attempt/view.rs).
import { builtin } from './builtin.js';

const { appendFileSync } = builtin('node:fs');
const { EOL } = builtin('node:os');

/** Tells the runner to replace `secret` with *** in every later log line. Call it first. */
export function mask(secret, write = (line) => process.stdout.write(line)) {
  if (!secret) return;
  // A multi-line secret is masked line by line, as the runner matches single lines.
  for (const part of String(secret).split(/\r?\n/)) {
    if (part.trim() !== '') write(`::add-mask::${escapeData(part)}${EOL}`);
  }
}

/** Escapes a workflow-command message: `%`, CR and LF would otherwise end or forge a command. */
function escapeData(text) {
  return String(text).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A heredoc delimiter that occurs nowhere in the value, so the value cannot end it early. */
export function delimiterFor(value) {
  // What makes it safe is the check below, made after the value is fixed; the delimiter need
  // not be unguessable, so Math.random serves and no run pays 2-4 ms to load node:crypto.
  for (;;) {
    let hex = '';
    while (hex.length < 32) hex += Math.floor(Math.random() * 0x100000000).toString(16).padStart(8, '0');
    const delimiter = `ghadelimiter_${hex}`;
    if (!value.includes(delimiter)) return delimiter;
  }
}

/** One `name<<DELIM` / value / `DELIM` record, the form that is safe for any value. */
export function outputRecord(name, value) {
  if (/[\r\n]|<</.test(name)) throw new Error(`invalid output name ${JSON.stringify(name)}`);
  const text = value === undefined || value === null ? '' : String(value);
  const delimiter = delimiterFor(text);
  return `${name}<<${delimiter}${EOL}${text}${EOL}${delimiter}${EOL}`;
}

/** Writes every output in one append, so a crash leaves all or none of them. */
export function setOutputs(outputs, env = process.env) {
  const file = env.GITHUB_OUTPUT;
  const text = Object.entries(outputs).map(([name, value]) => outputRecord(name, value)).join('');
  if (file) {
    appendFileSync(file, text, { encoding: 'utf8' });
  } else {
    // Outside a runner (or an old one): print what would have been set, for a person to read.
    for (const [name, value] of Object.entries(outputs)) process.stdout.write(`${name}=${escapeData(value ?? '')}${EOL}`);
  }
}

/** Appends Markdown to the step summary, when the runner provides one. */
export function appendSummary(markdown, env = process.env) {
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, `${markdown}${EOL}`, { encoding: 'utf8' });
}
