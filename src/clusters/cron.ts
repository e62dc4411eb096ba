// cron: the schedule syntax SveltosCluster.spec.activeWindow uses — robfig/cron's standard parser (what
// sveltoscluster-manager calls): five fields "minute hour day-of-month month day-of-week" with `*`, `?`, lists,
// ranges, steps (`*/5`, `1-10/2`, `5/15` = 5-max every 15) and JAN-DEC / SUN-SAT names, or one of the descriptors
// @yearly @annually @monthly @weekly @daily @midnight @hourly. As in robfig, when both day fields are restricted a
// day matches if EITHER does, otherwise both must. Times are UTC (robfig uses the controller's local zone, UTC in
// its container); a CRON_TZ=/TZ= prefix other than UTC and @every are refused with a message rather than guessed.
// Pure: next() takes the instant to start from.

/** CronSchedule is a parsed schedule. */
export interface CronSchedule {
  readonly source: string;
  /** next returns the first matching minute strictly after `after` (undefined if none within 5 years). */
  next(after: Date): Date | undefined;
}

/** CronParseResult is a schedule or why the text is not one. */
export type CronParseResult = { ok: true; schedule: CronSchedule } | { ok: false; message: string };

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: string[];
  namesBase?: number;
}

const FIELDS: FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, namesBase: 1 },
  { name: 'day-of-week', min: 0, max: 6, names: DAYS, namesBase: 0 },
];

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

interface Field {
  values: Set<number>;
  star: boolean;
}

function parseValue(text: string, f: FieldSpec): number {
  if (f.names) {
    const i = f.names.indexOf(text.toUpperCase());
    if (i >= 0) return i + (f.namesBase ?? 0);
  }
  if (!/^\d+$/.test(text)) throw new Error(`${f.name}: "${text}" is not a number${f.names ? ' or a name' : ''}`);
  return Number(text);
}

function parseField(text: string, f: FieldSpec): Field {
  const values = new Set<number>();
  let star = false;
  for (const part of text.split(',')) {
    const [range, stepText, extra] = part.split('/');
    if (extra !== undefined) throw new Error(`${f.name}: too many slashes in "${part}"`);
    let lo: number;
    let hi: number;
    if (range === '*' || range === '?') {
      lo = f.min;
      hi = f.max;
      if (stepText === undefined) star = true;
    } else {
      const bounds = (range ?? '').split('-');
      if (bounds.length > 2 || bounds.some((b) => b === '')) throw new Error(`${f.name}: bad range "${range}"`);
      lo = parseValue(bounds[0]!, f);
      hi = bounds.length === 2 ? parseValue(bounds[1]!, f) : stepText !== undefined ? f.max : lo;
    }
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0) throw new Error(`${f.name}: bad step "${stepText}"`);
      step = Number(stepText);
    }
    if (lo < f.min) throw new Error(`${f.name}: beginning of range (${lo}) below minimum (${f.min}): ${part}`);
    if (hi > f.max) throw new Error(`${f.name}: end of range (${hi}) above maximum (${f.max}): ${part}`);
    if (lo > hi) throw new Error(`${f.name}: beginning of range (${lo}) beyond end of range (${hi}): ${part}`);
    for (let v = lo; v <= hi; v += step) values.add(v);
  }
  return { values, star };
}

/** parseCron parses a standard (5-field or descriptor) cron expression. */
export function parseCron(source: string): CronParseResult {
  let text = source.trim();
  const tz = /^(?:CRON_TZ|TZ)=(\S+)\s+/.exec(text);
  if (tz) {
    if (tz[1] !== 'UTC' && tz[1] !== 'Etc/UTC') return { ok: false, message: `time zone ${tz[1]} is not supported (schedules are UTC): write the times in UTC` };
    text = text.slice(tz[0].length);
  }
  if (text.startsWith('@every')) return { ok: false, message: '@every is not supported for activeWindow: use a five-field schedule' };
  if (text.startsWith('@')) {
    const d = DESCRIPTORS[text.toLowerCase()];
    if (!d) return { ok: false, message: `unrecognized descriptor: ${text}` };
    text = d;
  }
  const parts = text.split(/\s+/).filter((p) => p !== '');
  if (parts.length !== 5) return { ok: false, message: `expected exactly 5 fields (minute hour day-of-month month day-of-week), found ${parts.length}: ${JSON.stringify(source)}` };
  let fields: Field[];
  try {
    fields = parts.map((p, i) => parseField(p, FIELDS[i]!));
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
  const [minute, hour, dom, month, dow] = fields as [Field, Field, Field, Field, Field];
  const dayMatches = (d: Date): boolean => {
    const a = dom.values.has(d.getUTCDate());
    const b = dow.values.has(d.getUTCDay());
    return dom.star || dow.star ? a && b : a || b;
  };
  return {
    ok: true,
    schedule: {
      source,
      next(after: Date): Date | undefined {
        const t = new Date(after.getTime());
        t.setUTCSeconds(0, 0);
        t.setUTCMinutes(t.getUTCMinutes() + 1);
        const limit = after.getTime() + 5 * 366 * 86_400_000;
        while (t.getTime() <= limit) {
          if (!month.values.has(t.getUTCMonth() + 1)) {
            t.setUTCMonth(t.getUTCMonth() + 1, 1);
            t.setUTCHours(0, 0, 0, 0);
            continue;
          }
          if (!dayMatches(t)) {
            t.setUTCDate(t.getUTCDate() + 1);
            t.setUTCHours(0, 0, 0, 0);
            continue;
          }
          if (!hour.values.has(t.getUTCHours())) {
            t.setUTCHours(t.getUTCHours() + 1, 0, 0, 0);
            continue;
          }
          if (!minute.values.has(t.getUTCMinutes())) {
            t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
            continue;
          }
          return t;
        }
        return undefined;
      },
    },
  };
}
