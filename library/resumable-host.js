// createResumableDeferralHost in its two forms, told apart by the shape of the first argument:
// - upstream's: a durable port {schedule, state, cancel} and a clock `nowMs` (port-host.js);
// - this project's: the options of `deferral-host serve` ({url, token}) or its port client,
//   with options {launch, maxReentries} (client-host.js).
import { createClientHost } from './client-host.js';
import { createPortHost } from './port-host.js';

const PORT_METHODS = ['schedule', 'state', 'cancel'];

export function createResumableDeferralHost(port, second) {
  const present = PORT_METHODS.filter((name) => typeof port?.[name] === 'function');
  if (present.length === PORT_METHODS.length) return createPortHost(port, second);
  // Half a durable port is a mistake to name, not a serve client missing its url.
  if (present.length > 0 || typeof second === 'function') {
    const missing = PORT_METHODS.filter((name) => !present.includes(name));
    throw new TypeError(`a durable port needs schedule, state and cancel methods; missing: ${missing.join(', ')}`);
  }
  return createClientHost(port, second);
}
