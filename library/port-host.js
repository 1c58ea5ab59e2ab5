// Upstream's resumable host: createResumableDeferralHost(port, nowMs) over a durable port
// {schedule, state, cancel}. Receipts, the resume window, the port's states and the fresh
// process's answer are the core's checks (driver/src/library/upstream.rs); this file only orders
// the calls. Errors are upstream's two TypeErrors, with the core's code as a property.
import { ask, encode, receiptOf } from './ask.js';

export function createPortHost(port, nowMs = Date.now) {
  return {
    /** Schedules a governed-handoff receipt with the port; answers its retained form. */
    async retain(source) {
      const handoff = receiptOf(ask('retain', { receipt: encode(source), now: nowMs() }));
      const handles = await port.schedule(handoff);
      return receiptOf(ask('retained', { receipt: JSON.stringify(handoff), handles: encode(handles) }));
    },

    /** Cancels a retained receipt through the port. */
    async cancel(source) {
      await port.cancel(receiptOf(ask('cancel', { receipt: encode(source) })));
    },

    /**
     * Runs `freshProcess(bindings, freshApprovalRequired)` once when the receipt is due and
     * the port says it is resumable; answers {status: 'blocked'} when the port says otherwise.
     */
    async resume(source, freshProcess) {
      const receipt = receiptOf(ask('resume', { receipt: encode(source), now: nowMs(), fresh: typeof freshProcess }));
      const gate = ask('may_run', { state: (await port.state(receipt)) ?? null });
      if (!gate.run) return gate.result;
      const result = await freshProcess(receipt.bindings, receipt.fresh_approval_required);
      const checked = ask('outcome', { previous: JSON.stringify(receipt), status: result?.status ?? null, next: encode(result?.receipt) });
      return checked.receipt ? { ...checked.result, receipt: receiptOf(checked) } : checked.result;
    },
  };
}
