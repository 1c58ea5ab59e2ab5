// createResumableDeferralHost in its two forms, told apart by the shape of the first argument
// (the core decides which, and names what half a durable port lacks):
// - upstream's: a durable port {schedule, state, cancel} and a clock `nowMs` (port-host.js);
// - this project's: the options of `deferral-host serve` ({url, token}) or its port client,
//   with options {launch, maxReentries} (client-host.js).
import { ask } from './ask.js';
import { createClientHost } from './client-host.js';
import { createPortHost } from './port-host.js';

const PORT_METHODS = ['schedule', 'state', 'cancel'];

export function createResumableDeferralHost(port, second) {
  const methods = Object.fromEntries(PORT_METHODS.map((name) => [name, typeof port?.[name] === 'function']));
  const { durable } = ask('host_form', { methods, second: typeof second });
  return durable ? createPortHost(port, second) : createClientHost(port, second);
}
