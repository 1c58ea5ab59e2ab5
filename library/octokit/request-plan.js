// The one-request plan the core costs before a request is sent: a REST call by its method and
// route template, a GraphQL call by its document and variables (the core estimates the points).

const pathOf = (url) => new URL(url, 'http://route.invalid').pathname;

/** The request's path, which tells the core the answer's bucket (search, graphql, ...). */
export const requestPath = (options) => pathOf(options.url ?? '/');

/** Whether the request reads the rate state itself (free of primary quota, never gated). */
export function isRateLimitRequest(options) {
  return (options.method ?? 'GET').toUpperCase() === 'GET' && /\/rate_limit$/.test(pathOf(options.url ?? ''));
}

/** The plan document for one request (docs/plan.md). */
export function requestPlan(options) {
  const method = (options.method ?? 'GET').toUpperCase();
  const path = pathOf(options.url ?? '/');
  if (method === 'POST' && /\/graphql$/.test(path) && typeof options.query === 'string') {
    const entry = { query: options.query };
    if (options.variables && typeof options.variables === 'object') entry.variables = options.variables;
    if (typeof options.operationName === 'string') entry.operation_name = options.operationName;
    return { graphql: [entry] };
  }
  // A template keeps its braces; an expanded URL is costed the same (one request).
  const route = (options.url ?? '/').startsWith('/') ? options.url.split('?')[0].replace(/\s/g, '') : path;
  return { rest: [{ method, route: route || '/' }] };
}
