// The gate decision for library callers: the core's pure `decide` (docs/decision.md), the
// same function the Action and the CLI call.
import { call } from '../action/lib/core.js';

/** A decision input object in, the decision out (an `error` decision for input of a wrong shape). */
export function decide(input) {
  return call('decide', input).decision;
}
