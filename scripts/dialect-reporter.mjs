// A test reporter that counts passed, failed and skipped tests per database, from the
// `[sqlite]`, `[mysql]` and `[postgres]` tags in suite names. Printed after the run.
const DIALECTS = ['sqlite', 'mysql', 'postgres'];

export default async function* dialectReporter(source) {
  const stacks = new Map();
  const counts = new Map();
  for await (const event of source) {
    if (event.type !== 'test:start' && event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file = '', nesting, name } = event.data;
    const stack = stacks.get(file) ?? [];
    stacks.set(file, stack);
    if (event.type === 'test:start') {
      stack[nesting] = name;
      stack.length = nesting + 1;
      continue;
    }
    if (event.data.details?.type === 'suite') continue;
    const names = [...stack.slice(0, nesting), name].join(' ');
    const dialect = DIALECTS.find((d) => names.includes(`[${d}]`)) ?? 'no database';
    const c = counts.get(dialect) ?? { passed: 0, failed: 0, skipped: 0 };
    if (event.type === 'test:fail') c.failed++;
    else if (event.data.skip || event.data.todo) c.skipped++;
    else c.passed++;
    counts.set(dialect, c);
  }
  const lines = [...counts.entries()].map(([d, c]) => `  ${d}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`);
  yield `\nTests by database:\n${lines.join('\n')}\n`;
}
