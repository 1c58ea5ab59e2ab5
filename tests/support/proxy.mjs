// A loopback forward proxy for tests: CONNECT tunnels (HTTPS targets) and absolute-form plain
// HTTP requests, as corporate proxies of self-hosted runners do. It records what it relayed.
import http from 'node:http';
import net from 'node:net';

export async function startProxy() {
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push({ kind: 'http', target: req.url });
    const target = new URL(req.url);
    const upstream = http.request({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => { res.writeHead(502); res.end(); });
    req.pipe(upstream);
  });
  server.on('connect', (req, client, head) => {
    seen.push({ kind: 'connect', target: req.url });
    const [host, port] = req.url.split(':');
    const upstream = net.connect(Number(port), host === 'localhost' ? '127.0.0.1' : host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    client.on('error', () => upstream.destroy());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    seen,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); }),
  };
}
