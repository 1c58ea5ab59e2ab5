// The package entry ("exports": "."): the durable-port client and the resumable host built on
// it, plus the core's receipt check they use.
export { createPortClient, PortError } from './host-port.js';
export { createResumableDeferralHost } from './resumable-host.js';
export { validateReceipt, lifecycleTransition } from './core.js';
