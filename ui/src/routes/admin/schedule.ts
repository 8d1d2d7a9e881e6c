// The schedule choices of SPEC (every N minutes, hourly, every N hours,
// daily at, weekly on) and their cron expressions (five fields, UTC, as the
// server's scheduler reads them), both ways: an expression the editor did not
// write shows as a raw cron expression.
export type Choice =
  | { kind: 'minutes'; every: number }
  | { kind: 'hourly'; minute: number }
  | { kind: 'hours'; every: number; minute: number }
  | { kind: 'daily'; hour: number; minute: number }
  | { kind: 'weekly'; day: number; hour: number; minute: number }
  | { kind: 'custom'; expr: string };

export function toCron(c: Choice): string {
  switch (c.kind) {
    case 'minutes':
      return `*/${c.every} * * * *`;
    case 'hourly':
      return `${c.minute} * * * *`;
    case 'hours':
      return `${c.minute} */${c.every} * * *`;
    case 'daily':
      return `${c.minute} ${c.hour} * * *`;
    case 'weekly':
      return `${c.minute} ${c.hour} * * ${c.day}`;
    default:
      return c.expr.trim();
  }
}

const n = (s: string | undefined): number | null => (s !== undefined && /^\d+$/.test(s) ? Number(s) : null);

export function fromCron(expr: string): Choice {
  const f = expr.trim().split(/\s+/);
  if (f.length === 5 && f[2] === '*' && f[3] === '*') {
    const [mi, h, , , d] = f;
    const every = /^\*\/(\d+)$/.exec(mi ?? '');
    if (every && h === '*' && d === '*') return { kind: 'minutes', every: Number(every[1]) };
    const m = n(mi);
    if (m !== null && h === '*' && d === '*') return { kind: 'hourly', minute: m };
    const eh = /^\*\/(\d+)$/.exec(h ?? '');
    if (m !== null && eh && d === '*') return { kind: 'hours', every: Number(eh[1]), minute: m };
    const hh = n(h);
    if (m !== null && hh !== null && d === '*') return { kind: 'daily', hour: hh, minute: m };
    const dd = n(d);
    if (m !== null && hh !== null && dd !== null) return { kind: 'weekly', day: dd % 7, hour: hh, minute: m };
  }
  return { kind: 'custom', expr };
}

/** The next count run times of a five-field expression in UTC, computed by
 * croner (loaded on demand); null when it cannot read the expression. */
export async function nextRuns(expr: string, count = 5): Promise<Date[] | null> {
  const { Cron } = await import('croner');
  try {
    const c = new Cron(expr, { timezone: 'UTC', paused: true });
    const runs = c.nextRuns(count);
    c.stop();
    return runs.length ? runs : null;
  } catch {
    return null;
  }
}
