// A small argument parser: --flag value, --flag=value, boolean flags, and positionals.
import { CommandError, EXIT } from './exit-codes.js';

/**
 * @param {string[]} argv arguments after the command name
 * @param {{values?: string[], booleans?: string[], lists?: string[]}} spec flag names without
 *   dashes; a `lists` flag may repeat and collects its values in an array
 */
export function parseArgs(argv, spec) {
  const lists = new Set(spec.lists ?? []);
  const values = new Set([...(spec.values ?? []), ...lists]);
  const booleans = new Set([...(spec.booleans ?? []), 'help']);
  const flags = {};
  const positionals = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h') { flags.help = true; continue; }
    if (arg === '-' || !arg.startsWith('--')) { positionals.push(arg); continue; }
    if (arg === '--') { positionals.push(...argv.slice(i + 1)); break; }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (booleans.has(name) && eq === -1) { flags[name] = true; continue; }
    if (!values.has(name)) {
      throw new CommandError(EXIT.invalid, 'unknown-flag', `unknown flag --${name} (see --help)`);
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) {
      throw new CommandError(EXIT.invalid, 'missing-value', `--${name} needs a value`);
    }
    if (lists.has(name)) (flags[name] ??= []).push(value);
    else flags[name] = value;
  }
  return { flags, positionals };
}
