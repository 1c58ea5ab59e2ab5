// One HTTP request with node:http/node:https directly (the built-in fetch costs a short-lived
// process about 100 ms of start-up), through the proxy the core chose from the environment
// (driver/src/proxy.rs). It never retries: the caller decides what a failure means, and
// Deferral's rule is one request per run.
import { builtin } from './builtin.js';
import { call } from './wasm.js';

const http = builtin('node:http');
// node:https and node:tls cost a few milliseconds to load: only HTTPS requests pay for them.
let secure;
const loadTls = () => (secure ??= { https: builtin('node:https'), tls: builtin('node:tls') });


/** A transport failure: no usable HTTP response. `code` is Node's (ECONNREFUSED, ...) or ours. */
export class TransportError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

const transportError = (err, what) =>
  err instanceof TransportError ? err : new TransportError(err.code ?? 'EIO', `${what}: ${err.code ?? err.message}`);

function proxyAuthorization(proxy) {
  if (!proxy.username && !proxy.password) return {};
  const user = decodeURIComponent(proxy.username);
  const pass = decodeURIComponent(proxy.password);
  return { 'proxy-authorization': `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` };
}

const defaultPort = (url) => Number(url.port || (url.protocol === 'https:' ? 443 : 80));

/** Opens a CONNECT tunnel through `proxy` to the target and resolves with a TLS socket over it. */
function tunnel(proxy, target, signal, { https, tls }) {
  return new Promise((resolve, reject) => {
    const authority = `${target.hostname}:${defaultPort(target)}`;
    const client = proxy.protocol === 'https:' ? https : http;
    const req = client.request({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: defaultPort(proxy),
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...proxyAuthorization(proxy) },
      agent: false,
      signal,
    });
    req.once('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        reject(new TransportError('EPROXY', `the proxy refused the tunnel: HTTP ${res.statusCode}`));
        return;
      }
      const secure = tls.connect({ socket, servername: target.hostname.replace(/^\[|\]$/g, '') });
      secure.once('secureConnect', () => resolve(secure));
      secure.once('error', (err) => reject(transportError(err, 'TLS through the proxy failed')));
    });
    req.once('error', (err) => reject(transportError(err, 'cannot reach the proxy')));
    req.end();
  });
}

function send(options, client, signal, body, maxBytes) {
  return new Promise((resolve, reject) => {
    const req = client.request({ ...options, signal }, (res) => {
      const chunks = [];
      let size = 0;
      res.on('data', (chunk) => {
        size += chunk.length;
        if (size > maxBytes) {
          req.destroy(new TransportError('ETOOBIG', `the response body is larger than ${maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.once('end', () => {
        const pairs = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i], res.rawHeaders[i + 1]]);
        resolve({ status: res.statusCode, headers: pairs, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.once('error', (err) => reject(transportError(err, 'the response broke off')));
    });
    req.once('error', (err) => reject(transportError(err, 'the request failed')));
    req.end(body);
  });
}

function proxyOf(href, chosen, env) {
  if (chosen === undefined) {
    const passed = Object.fromEntries(Object.entries(env).filter(([k]) => /^(https?|no)_proxy$/i.test(k)));
    const answer = call('proxy_for', { url: href, env: passed });
    if (!answer.ok) throw new TransportError('EPROXYSCHEME', answer.error.message);
    chosen = answer.proxy;
  }
  return chosen ? new URL(chosen) : undefined;
}

/**
 * Sends one request and resolves with {status, headers: [[name, value], ...], body}, or rejects
 * with a TransportError (refused, reset, DNS, TLS, proxy, timeout). Non-2xx statuses resolve.
 * `body` (a string or Buffer) is sent as it is; the caller sets its headers. `proxy`: the proxy
 * URL, null for none, or undefined to have the core choose it from `env`. `timeoutMs` and
 * `maxBytes` (the largest body read) come from the core (`driver/src/run.rs`), like every limit.
 */
export async function request(href, { method = 'GET', headers = {}, body, timeoutMs, maxBytes, env = process.env, proxy: chosen } = {}) {
  const url = new URL(href);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TransportError('EURL', `unsupported URL scheme ${url.protocol}`);
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const path = `${url.pathname}${url.search}`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  try {
    const proxy = proxyOf(href, chosen, env);
    const lib = url.protocol === 'https:' || proxy?.protocol === 'https:' ? loadTls() : null;
    if (!proxy) {
      return await send({ host, port: defaultPort(url), path, method, headers, agent: false }, lib ? lib.https : http, controller.signal, body, maxBytes);
    }
    if (url.protocol === 'https:') {
      const socket = await tunnel(proxy, url, controller.signal, lib);
      return await send({ host, port: defaultPort(url), path, method, headers, servername: host, createConnection: () => socket }, lib.https, controller.signal, body, maxBytes);
    }
    // Plain HTTP through a proxy: the absolute URL goes in the request line.
    return await send({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: defaultPort(proxy),
      path: url.href,
      method,
      headers: { host: url.host, ...headers, ...proxyAuthorization(proxy) },
      agent: false,
    }, proxy.protocol === 'https:' ? lib.https : http, controller.signal, body, maxBytes);
  } catch (err) {
    if (controller.signal.aborted) throw new TransportError('ETIMEDOUT', `no answer within ${timeoutMs} ms`);
    throw transportError(err, 'the request failed');
  } finally {
    clearTimeout(timer);
  }
}
