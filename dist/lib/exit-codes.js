// Exit codes shared by every deferral command (DESIGN.md section 7).
export const EXIT = Object.freeze({
  ok: 0, // ready or complete
  invalid: 2, // invalid input, including an invalid receipt
  auth: 3, // authentication or authorization
  provider: 4, // provider or transport failure
  blocked: 5,
  deferred: 6,
});

/** A failure that ends a command with a code and a one-line JSON error. */
export class CommandError extends Error {
  constructor(exit, code, message, path) {
    super(message);
    this.exit = exit;
    this.code = code;
    this.path = path;
  }
}
