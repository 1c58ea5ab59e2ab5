// The package entry ("exports": "."): the resumable host in both forms, the durable ports, the
// receipt functions and the gate decision, every check made by the wasm core.
import { call } from '../shared/wasm.js';

export { createPortClient, PortError } from './host-port.js';
export { createResumableDeferralHost } from './resumable-host.js';
export { createServePort } from './serve-port.js';
export { createFileKeyStore, defaultKeyStoreDir } from './key-store.js';
export {
  parseDeferredReceiptV1, createGovernedHandoffReceipt, validateReceipt, receiptDigest, INVALID_RECEIPT, INVALID_TRANSITION,
} from './receipt-api.js';
export { lifecycleTransition } from '../shared/wasm.js';

/** The core's pure `decide` (docs/decision.md), as the Action and the CLI call it. */
export const decide = (input) => call('decide', input).decision;
