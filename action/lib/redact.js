// Last line of defence for output: replaces every secret text (token, repository name, scope and
// request as given) inside string values with ***. Keys are left alone, so JSON stays valid.

export function redactText(text, secrets) {
  let out = String(text);
  for (const secret of secrets) {
    if (secret) out = out.split(secret).join('***');
  }
  return out;
}

/** A deep copy of `value` with secrets replaced in every string. */
export function redactValue(value, secrets) {
  const list = secrets.filter((s) => typeof s === 'string' && s.length > 0).sort((a, b) => b.length - a.length);
  const walk = (v) => {
    if (typeof v === 'string') return redactText(v, list);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value);
}
