// The floor: the least a gate can do with Node alone. Built-ins as run.js loads them (no static
// import, see shared/builtin.js), one GET /rate_limit, JSON.parse, one output appended.
export const FLOOR = `const { get } = process.getBuiltinModule('node:http'), { appendFileSync } = process.getBuiltinModule('node:fs');
get(new URL('/rate_limit', process.env.GITHUB_API_URL), { headers: { authorization: \`Bearer \${process.env.INPUT_TOKEN}\`, 'user-agent': 'floor' } }, (res) => {
  let body = '';
  res.setEncoding('utf8').on('data', (chunk) => { body += chunk; }).on('end', () => {
    const core = JSON.parse(body).resources.core;
    appendFileSync(process.env.GITHUB_OUTPUT, \`status=\${core.remaining >= core.limit * 0.1 ? 'ready' : 'deferred'}\\n\`);
  });
});
`;
