// Reads a saved HTTP response as `curl -i` or `gh api -i` print it: a status line, headers, a
// blank line, the body. Interim blocks (100 Continue, a proxy's "Connection established") are
// skipped, so the last status block is the response.

export function parseResponseText(text) {
  const normalised = text.replace(/\r\n/g, '\n');
  let rest = normalised;
  let block = null;
  for (;;) {
    const match = /^HTTP\/[\d.]+\s+(\d{3})[^\n]*\n/.exec(rest);
    if (!match) break;
    const end = rest.indexOf('\n\n', match[0].length - 1);
    const head = end === -1 ? rest.slice(match[0].length) : rest.slice(match[0].length, end);
    block = { status: Number(match[1]), head, body: end === -1 ? '' : rest.slice(end + 2) };
    rest = block.body;
  }
  if (!block) return null;
  const headers = block.head.split('\n').filter(Boolean).map((line) => {
    const colon = line.indexOf(':');
    return colon === -1 ? null : [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
  }).filter(Boolean);
  return { status: block.status, headers, body: block.body };
}
