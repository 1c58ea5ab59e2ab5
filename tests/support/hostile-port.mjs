// A durable port that answers what a test tells it to, in place of `deferral-host serve`: the
// Action must check and word whatever a port says (a planted id or handle, an error whose code
// and message carry Markdown) as carefully as GitHub's answers. Loopback only.
import { createServer } from 'node:http';

/**
 * Starts the port. `answer(receipt)` gives {status, body} for each POST (the receipt is the
 * handoff receipt the Action sent). Resolves with {url, close()}.
 */
export async function startHostilePort(answer) {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      let receipt = null;
      try { ({ receipt } = JSON.parse(body)); } catch { /* answered all the same */ }
      const reply = answer(receipt);
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); }),
  };
}

/** A port that retains whatever it is sent, but answers the id and handle it was given. */
export function retainingAs({ id, handle }) {
  return startHostilePort((receipt) => ({
    status: 201,
    body: {
      id,
      receipt: { ...receipt, ownership: { disposition: 'retained', mode: 'durable-host', wakeup_digest: 'a'.repeat(64), cancellation_digest: 'b'.repeat(64) } },
      cancellation_handle: handle,
    },
  }));
}
