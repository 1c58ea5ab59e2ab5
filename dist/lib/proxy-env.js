// Which proxy, if any, a request to a URL goes through: HTTPS_PROXY / HTTP_PROXY / NO_PROXY as
// self-hosted runners set them (lower-case names win, as curl reads them).

function env(vars, name) {
  const value = vars[name.toLowerCase()] ?? vars[name.toUpperCase()];
  return value && value.trim() !== '' ? value.trim() : undefined;
}

/** `true` when NO_PROXY lists the host: `*`, exact names, domain suffixes (`.corp` or `corp`), host:port. */
export function bypassesProxy(url, vars) {
  const list = env(vars, 'no_proxy');
  if (!list) return false;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return list.split(/[\s,]+/).filter(Boolean).some((entry) => {
    if (entry === '*') return true;
    let [name, entryPort] = [entry.toLowerCase(), undefined];
    const colon = name.lastIndexOf(':');
    if (colon > -1 && !name.includes(']') && /^\d+$/.test(name.slice(colon + 1)) && name.indexOf(':') === colon) {
      [name, entryPort] = [name.slice(0, colon), name.slice(colon + 1)];
    }
    name = name.replace(/^\[|\]$/g, '').replace(/^\*?\./, '');
    if (entryPort && entryPort !== port) return false;
    return host === name || host.endsWith(`.${name}`);
  });
}

/** The proxy URL for `url`, or undefined to connect directly. */
export function proxyFor(url, vars = process.env) {
  if (bypassesProxy(url, vars)) return undefined;
  const raw = url.protocol === 'https:' ? env(vars, 'https_proxy') : env(vars, 'http_proxy');
  if (!raw) return undefined;
  // A proxy given as host:port without a scheme is an HTTP proxy, as curl reads it.
  const proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  if (proxy.protocol !== 'http:' && proxy.protocol !== 'https:') {
    throw Object.assign(new Error(`unsupported proxy scheme ${proxy.protocol} (use http:// or https://)`), { code: 'EPROXYSCHEME' });
  }
  return proxy;
}
