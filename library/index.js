// The package entry ("exports": "."): the resumable host in both forms, the durable ports, and
// the receipt functions, every check made by the wasm core.
export { createPortClient, PortError } from './host-port.js';
export { createResumableDeferralHost } from './resumable-host.js';
export { createServePort } from './serve-port.js';
export { createFileKeyStore, defaultKeyStoreDir } from './key-store.js';
export {
  parseDeferredReceiptV1, createGovernedHandoffReceipt, validateReceipt, receiptDigest, INVALID_RECEIPT, INVALID_TRANSITION,
} from './receipt-api.js';
export { lifecycleTransition } from '../action/lib/core.js';
export { decide } from './decide.js';
