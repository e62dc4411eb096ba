// date.ts: Go's time.Time, layouts, parsing, durations and zones as far as Sprig's date functions need them,
// with the clock and the meaning of time.Local injected. Go: time/format.go, time/time.go; sprig date.go.
import { GoInt, parseInt64, quote, type GoFunc, type GoValue } from '../gotemplate/index.js';
import { defineFunc, goError } from './define.js';
import type { ResolvedOptions } from './options.js';
import { wrapInt64 } from './strconv.js';

/** ZoneInfo is what a location says about one instant: its abbreviation and offset east of UTC in seconds. */
export interface ZoneInfo {
  abbr: string;
  offset: number;
}

/** Location is a Go *time.Location: a name and the zone in effect at each instant. */
export interface Location {
  readonly name: string;
  lookup(unixSec: number): ZoneInfo;
}

/** UTC is time.UTC. */
export const UTC: Location = { name: 'UTC', lookup: () => ({ abbr: 'UTC', offset: 0 }) };

/** fixedZone is time.FixedZone. */
export function fixedZone(name: string, offset: number): Location {
  return { name, lookup: () => ({ abbr: name, offset }) };
}


/** ZONE_ABBRS gives tzdata's [standard, daylight] abbreviations for common zones Intl cannot name. */
const ZONE_ABBRS: Record<string, readonly [string, string]> = (() => {
  const t: Record<string, readonly [string, string]> = {};
  const add = (std: string, dst: string, zones: string) => {
    for (const z of zones.split(' ')) t[z] = [std, dst];
  };
  add('CET', 'CEST', 'Europe/Berlin Europe/Paris Europe/Madrid Europe/Rome Europe/Amsterdam Europe/Brussels Europe/Vienna Europe/Zurich Europe/Stockholm Europe/Oslo Europe/Copenhagen Europe/Warsaw Europe/Prague Europe/Budapest Europe/Belgrade Europe/Zagreb Europe/Ljubljana Europe/Bratislava Europe/Luxembourg Europe/Monaco Europe/Malta Europe/Andorra Europe/Tirane Europe/Sarajevo Europe/Skopje Europe/Podgorica Europe/Gibraltar Europe/Vaduz Europe/San_Marino Europe/Vatican Europe/Busingen Arctic/Longyearbyen Africa/Algiers Africa/Tunis Africa/Ceuta');
  add('EET', 'EEST', 'Europe/Athens Europe/Helsinki Europe/Kiev Europe/Kyiv Europe/Bucharest Europe/Sofia Europe/Riga Europe/Tallinn Europe/Vilnius Europe/Chisinau Europe/Mariehamn Europe/Nicosia Asia/Nicosia Asia/Famagusta Asia/Beirut Africa/Cairo Africa/Tripoli Europe/Kaliningrad');
  add('WET', 'WEST', 'Europe/Lisbon Atlantic/Canary Atlantic/Madeira Atlantic/Faroe Atlantic/Faeroe');
  add('GMT', 'BST', 'Europe/London Europe/Jersey Europe/Guernsey Europe/Isle_of_Man GB');
  add('GMT', 'IST', 'Europe/Dublin Eire');
  add('MSK', 'MSD', 'Europe/Moscow Europe/Simferopol Europe/Kirov Europe/Volgograd');
  add('IST', 'IST', 'Asia/Kolkata Asia/Calcutta');
  add('PKT', 'PKST', 'Asia/Karachi');
  add('JST', 'JDT', 'Asia/Tokyo Japan');
  add('KST', 'KDT', 'Asia/Seoul ROK');
  add('CST', 'CDT', 'Asia/Shanghai Asia/Chongqing Asia/Harbin Asia/Taipei Asia/Macau PRC ROC');
  add('HKT', 'HKST', 'Asia/Hong_Kong Hongkong');
  add('PST', 'PDT', 'Asia/Manila');
  add('WIB', 'WIB', 'Asia/Jakarta Asia/Pontianak');
  add('WITA', 'WITA', 'Asia/Makassar');
  add('WIT', 'WIT', 'Asia/Jayapura');
  add('IST', 'IDT', 'Asia/Jerusalem Asia/Tel_Aviv Israel');
  add('AEST', 'AEDT', 'Australia/Sydney Australia/Melbourne Australia/Hobart Australia/Canberra Australia/ACT Australia/NSW Australia/Victoria Australia/Tasmania Australia/Currie Australia/Brisbane Australia/Lindeman Australia/Queensland');
  add('ACST', 'ACDT', 'Australia/Adelaide Australia/Broken_Hill Australia/South Australia/Darwin Australia/North');
  add('AWST', 'AWDT', 'Australia/Perth Australia/West');
  add('NZST', 'NZDT', 'Pacific/Auckland NZ');
  add('SAST', 'SAST', 'Africa/Johannesburg Africa/Maseru Africa/Mbabane');
  add('CAT', 'CAT', 'Africa/Maputo Africa/Harare Africa/Lusaka Africa/Lubumbashi Africa/Blantyre Africa/Bujumbura Africa/Gaborone Africa/Kigali Africa/Windhoek Africa/Juba Africa/Khartoum');
  add('EAT', 'EAT', 'Africa/Nairobi Africa/Addis_Ababa Africa/Dar_es_Salaam Africa/Kampala Africa/Mogadishu Africa/Djibouti Africa/Asmara Indian/Antananarivo Indian/Comoro Indian/Mayotte');
  add('WAT', 'WAT', 'Africa/Lagos Africa/Kinshasa Africa/Luanda Africa/Douala Africa/Libreville Africa/Malabo Africa/Niamey Africa/Porto-Novo Africa/Bangui Africa/Brazzaville Africa/Ndjamena');
  add('GMT', 'GMT', 'Africa/Abidjan Africa/Accra Africa/Dakar Africa/Bamako Africa/Banjul Africa/Conakry Africa/Freetown Africa/Lome Africa/Monrovia Africa/Nouakchott Africa/Ouagadougou Atlantic/Reykjavik Atlantic/St_Helena Iceland Etc/GMT GMT Etc/Greenwich Greenwich');
  add('UTC', 'UTC', 'Etc/UTC Etc/Universal Etc/Zulu UCT Universal Zulu Etc/UCT');
  return t;
})();

const zoneCache = new Map<string, Location>();

/** ianaZone returns a Location for an IANA zone name, computed with Intl, or undefined when the name is unknown. */
export function ianaZone(name: string): Location | undefined {
  const cached = zoneCache.get(name);
  if (cached) return cached;
  let fmt: Intl.DateTimeFormat;
  let abbrFmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    abbrFmt = new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'short' });
  } catch {
    return undefined;
  }
  const resolved = fmt.resolvedOptions().timeZone;
  // Go opens zoneinfo files by exact name; Intl is case-insensitive, so insist on Go-like spelling.
  if (resolved !== name && !/^[A-Z][A-Za-z0-9_+-]*(\/[A-Z0-9][A-Za-z0-9_+-]*)*$/.test(name)) return undefined;
  const loc: Location & { lookupOffset(unixSec: number): number } = {
    name,
    lookupOffset(unixSec) {
      const parts: Record<string, string> = {};
      for (const p of fmt.formatToParts(unixSec * 1000)) parts[p.type] = p.value;
      let year = Number(parts.year);
      if (parts.era === 'BC') year = 1 - year;
      const wall = civilToUnix(year, Number(parts.month), Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
      return wall - Math.floor(unixSec);
    },
    lookup(unixSec) {
      const ms = unixSec * 1000;
      const offset = loc.lookupOffset(unixSec);
      let abbr = abbrFmt.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value ?? '';
      if (/^GMT[+-]/.test(abbr) || abbr === 'GMT' || abbr === '') {
        // Intl (en-US) only knows letter abbreviations for American zones; tzdata's come from a table, and where
        // tzdata has none it uses a numeric one such as +03 or +0530.
        const known = ZONE_ABBRS[name];
        if (known) {
          const year = new Date(ms).getUTCFullYear();
          const jan = loc.lookupOffset(civilToUnix(year, 1, 1, 0, 0, 0));
          const jul = loc.lookupOffset(civilToUnix(year, 7, 1, 0, 0, 0));
          abbr = offset > Math.min(jan, jul) ? known[1] : known[0];
        } else if (abbr === 'GMT' && offset === 0) abbr = 'GMT';
        else {
          const a = Math.abs(offset);
          const hh = String(Math.floor(a / 3600)).padStart(2, '0');
          const mm = Math.floor((a % 3600) / 60);
          abbr = (offset < 0 ? '-' : '+') + hh + (mm ? String(mm).padStart(2, '0') : '');
        }
      }
      return { abbr, offset };
    },
  };
  zoneCache.set(name, loc);
  return loc;
}

/** loadLocation is time.LoadLocation with `Local` bound to the configured local zone. */
export function loadLocation(name: string, local: Location): Location | undefined {
  if (name === '' || name === 'UTC') return UTC;
  if (name === 'Local') return local;
  return ianaZone(name);
}

/** localLocation is time.Local for a configured zone name (named "Local", as Go's is). */
export function localLocation(zone: string): Location {
  const z = zone === 'UTC' || zone === '' ? UTC : (ianaZone(zone) ?? UTC);
  return { name: 'Local', lookup: (s) => z.lookup(s) };
}

/** civilToUnix converts a proleptic Gregorian wall time (UTC) to Unix seconds; fields may overflow, as in Go's Date. */
export function civilToUnix(year: number, month: number, day: number, hour: number, min: number, sec: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, min, sec, 0);
  return d.getTime() / 1000;
}

const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const LONG_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const SHORT_DAYS = LONG_DAYS.map((d) => d.slice(0, 3));
const SHORT_MONTHS = LONG_MONTHS.map((m) => m.slice(0, 3));

/** GoTime is a Go time.Time: Unix seconds, nanoseconds and a location. */
export class GoTime {
  constructor(
    readonly sec: number,
    readonly nsec: number,
    readonly loc: Location,
  ) {}

  /** fromNanos builds a time from nanoseconds since the Unix epoch. */
  static fromNanos(ns: bigint, loc: Location): GoTime {
    let sec = ns / 1_000_000_000n;
    let nsec = ns % 1_000_000_000n;
    if (nsec < 0n) {
      nsec += 1_000_000_000n;
      sec -= 1n;
    }
    return new GoTime(Number(sec), Number(nsec), loc);
  }

  nanos(): bigint {
    return BigInt(this.sec) * 1_000_000_000n + BigInt(this.nsec);
  }

  in(loc: Location): GoTime {
    return new GoTime(this.sec, this.nsec, loc);
  }

  add(d: bigint): GoTime {
    return GoTime.fromNanos(this.nanos() + d, this.loc);
  }

  goString(): string {
    return formatTime(this, '2006-01-02 15:04:05.999999999 -0700 MST');
  }

  goTypeName(): string {
    return 'time.Time';
  }

  goEqual(o: unknown): boolean {
    return o instanceof GoTime && o.sec === this.sec && o.nsec === this.nsec && o.loc === this.loc;
  }

  goMarshalJSON(): string {
    const y = civil(this).year;
    if (y < 0 || y > 9999) throw new Error('Time.MarshalJSON: year outside of range [0,9999]');
    return '"' + formatTime(this, '2006-01-02T15:04:05.999999999Z07:00') + '"';
  }

  goFieldNames(): readonly string[] {
    return TIME_FIELDS;
  }

  /**
   * goMethod exposes time.Time's methods to templates: Year, Month, Day, Hour, Minute, Second, Nanosecond, YearDay,
   * Weekday, Unix, UnixMilli, UnixMicro, UnixNano, UTC, IsZero, String, and with arguments Format, AddDate, Before,
   * After, Equal, Compare. Go: time/time.go, time/format.go
   */
  goMethod(name: string): GoValue | undefined {
    switch (name) {
      case 'Unix':
        return BigInt(this.sec);
      case 'UnixNano':
        return wrapInt64(this.nanos());
      case 'UnixMicro':
        return this.nanos() / 1000n - (this.nanos() % 1000n < 0n ? 1n : 0n);
      case 'UnixMilli':
        return BigInt(Math.floor(this.sec * 1000 + this.nsec / 1e6));
      case 'Year':
        return new GoInt('int', BigInt(civil(this).year));
      case 'Month': {
        const m = civil(this).month;
        return new TimeEnum('time.Month', m, LONG_MONTHS[m - 1]);
      }
      case 'Weekday': {
        const d = civil(this).weekday;
        return new TimeEnum('time.Weekday', d, LONG_DAYS[d]);
      }
      case 'YearDay':
        return new GoInt('int', BigInt(civil(this).yday));
      case 'Day':
        return new GoInt('int', BigInt(civil(this).day));
      case 'Hour':
        return new GoInt('int', BigInt(civil(this).hour));
      case 'Minute':
        return new GoInt('int', BigInt(civil(this).min));
      case 'Second':
        return new GoInt('int', BigInt(civil(this).sec));
      case 'Nanosecond':
        return new GoInt('int', BigInt(this.nsec));
      case 'UTC':
        return this.in(UTC);
      case 'IsZero':
        return this.sec === ZERO_TIME_SEC && this.nsec === 0;
      case 'String':
        return this.goString();
      case 'Format':
        return defineFunc(name, '(string) string', (layout: string) => formatTime(this, layout));
      case 'AddDate':
        // Go: AddDate normalizes through Date, so Jan 31 + 1 month is March 2 or 3.
        return defineFunc(name, '(int, int, int) time.Time', (y: GoInt, m: GoInt, d: GoInt) => {
          const c = civil(this);
          return dateIn(c.year + Number(y.value), c.month + Number(m.value), c.day + Number(d.value), c.hour, c.min, c.sec, this.nsec, this.loc);
        });
      case 'Before':
        return defineFunc(name, '(time.Time) bool', (u: GoTime) => this.nanos() < u.nanos());
      case 'After':
        return defineFunc(name, '(time.Time) bool', (u: GoTime) => this.nanos() > u.nanos());
      case 'Equal':
        return defineFunc(name, '(time.Time) bool', (u: GoTime) => this.nanos() === u.nanos());
      case 'Compare':
        return defineFunc(name, '(time.Time) int', (u: GoTime) => {
          const a = this.nanos();
          const b = u.nanos();
          return new GoInt('int', a < b ? -1n : a > b ? 1n : 0n);
        });
    }
    return undefined;
  }
}

/** TIME_FIELDS are time.Time's (unexported) struct fields, for Go's "unexported field" error. */
const TIME_FIELDS: readonly string[] = ['wall', 'ext', 'loc'];

/** TimeEnum is a time.Month or time.Weekday: an int that prints as its English name. */
export class TimeEnum {
  constructor(
    readonly typeName: 'time.Month' | 'time.Weekday',
    readonly value: number,
    readonly name: string,
  ) {}

  goString(): string {
    return this.name;
  }

  goTypeName(): string {
    return this.typeName;
  }

  goKind(): string {
    return 'int';
  }

  goUnderlying(): GoValue {
    return new GoInt('int', BigInt(this.value));
  }

  goMarshalJSON(): string {
    return String(this.value);
  }

  goEqual(o: unknown): boolean {
    return o instanceof TimeEnum && o.typeName === this.typeName && o.value === this.value;
  }
}

/** ZERO_TIME_SEC is the Unix second of Go's zero time, January 1, year 1, 00:00:00 UTC. */
export const ZERO_TIME_SEC = -62135596800;

/** zeroTime is time.Time{}. */
export const zeroTime = (): GoTime => new GoTime(ZERO_TIME_SEC, 0, UTC);

interface Civil {
  year: number;
  month: number;
  day: number;
  yday: number;
  hour: number;
  min: number;
  sec: number;
  weekday: number;
  abbr: string;
  offset: number;
}

function civil(t: GoTime): Civil {
  const z = t.loc.lookup(t.sec);
  const d = new Date((t.sec + z.offset) * 1000);
  const year = d.getUTCFullYear();
  const jan1 = new Date(0);
  jan1.setUTCFullYear(year, 0, 1);
  const yday = Math.floor((d.getTime() - jan1.getTime()) / 86400000) + 1;
  return {
    year,
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    yday,
    hour: d.getUTCHours(),
    min: d.getUTCMinutes(),
    sec: d.getUTCSeconds(),
    weekday: d.getUTCDay(),
    abbr: z.abbr,
    offset: z.offset,
  };
}

// Layout elements. Go: format.go std* constants.
const enum Std {
  None,
  LongMonth,
  Month,
  NumMonth,
  ZeroMonth,
  LongWeekDay,
  WeekDay,
  Day,
  UnderDay,
  ZeroDay,
  UnderYearDay,
  ZeroYearDay,
  Hour,
  Hour12,
  ZeroHour12,
  Minute,
  ZeroMinute,
  Second,
  ZeroSecond,
  LongYear,
  Year,
  PM,
  pm,
  TZ,
  ISO8601TZ,
  ISO8601SecondsTZ,
  ISO8601ShortTZ,
  ISO8601ColonTZ,
  ISO8601ColonSecondsTZ,
  NumTZ,
  NumSecondsTz,
  NumShortTZ,
  NumColonTZ,
  NumColonSecondsTZ,
  FracSecond0,
  FracSecond9,
}

interface Chunk {
  prefix: string;
  std: Std;
  /** digits and separator of a fractional-second element */
  frac?: { n: number; sep: string };
  suffix: string;
}

const STD0X = [Std.ZeroMonth, Std.ZeroDay, Std.ZeroHour12, Std.ZeroMinute, Std.ZeroSecond, Std.Year];

const startsWithLower = (s: string) => s.length > 0 && s[0] >= 'a' && s[0] <= 'z';
const isDigitAt = (s: string, i: number) => i < s.length && s[i] >= '0' && s[i] <= '9';

/** nextStdChunk finds the next layout element. Go: format.go nextStdChunk */
function nextStdChunk(layout: string): Chunk {
  const at = (i: number, std: Std, len: number): Chunk => ({ prefix: layout.slice(0, i), std, suffix: layout.slice(i + len) });
  for (let i = 0; i < layout.length; i++) {
    const c = layout[i];
    const rest = layout.slice(i);
    switch (c) {
      case 'J':
        if (rest.startsWith('Jan')) {
          if (rest.startsWith('January')) return at(i, Std.LongMonth, 7);
          if (!startsWithLower(layout.slice(i + 3))) return at(i, Std.Month, 3);
        }
        break;
      case 'M':
        if (rest.startsWith('Mon')) {
          if (rest.startsWith('Monday')) return at(i, Std.LongWeekDay, 6);
          if (!startsWithLower(layout.slice(i + 3))) return at(i, Std.WeekDay, 3);
        }
        if (rest.startsWith('MST')) return at(i, Std.TZ, 3);
        break;
      case '0':
        if (layout.length >= i + 2 && layout[i + 1] >= '1' && layout[i + 1] <= '6') return at(i, STD0X[layout.charCodeAt(i + 1) - 49], 2);
        if (rest.startsWith('002')) return at(i, Std.ZeroYearDay, 3);
        break;
      case '1':
        if (layout[i + 1] === '5') return at(i, Std.Hour, 2);
        return at(i, Std.NumMonth, 1);
      case '2':
        if (rest.startsWith('2006')) return at(i, Std.LongYear, 4);
        return at(i, Std.Day, 1);
      case '_':
        if (layout[i + 1] === '2') {
          if (layout.slice(i + 1, i + 5) === '2006') return { prefix: layout.slice(0, i + 1), std: Std.LongYear, suffix: layout.slice(i + 5) };
          return at(i, Std.UnderDay, 2);
        }
        if (rest.startsWith('__2')) return at(i, Std.UnderYearDay, 3);
        break;
      case '3':
        return at(i, Std.Hour12, 1);
      case '4':
        return at(i, Std.Minute, 1);
      case '5':
        return at(i, Std.Second, 1);
      case 'P':
        if (layout[i + 1] === 'M') return at(i, Std.PM, 2);
        break;
      case 'p':
        if (layout[i + 1] === 'm') return at(i, Std.pm, 2);
        break;
      case '-':
        if (rest.startsWith('-070000')) return at(i, Std.NumSecondsTz, 7);
        if (rest.startsWith('-07:00:00')) return at(i, Std.NumColonSecondsTZ, 9);
        if (rest.startsWith('-0700')) return at(i, Std.NumTZ, 5);
        if (rest.startsWith('-07:00')) return at(i, Std.NumColonTZ, 6);
        if (rest.startsWith('-07')) return at(i, Std.NumShortTZ, 3);
        break;
      case 'Z':
        if (rest.startsWith('Z070000')) return at(i, Std.ISO8601SecondsTZ, 7);
        if (rest.startsWith('Z07:00:00')) return at(i, Std.ISO8601ColonSecondsTZ, 9);
        if (rest.startsWith('Z0700')) return at(i, Std.ISO8601TZ, 5);
        if (rest.startsWith('Z07:00')) return at(i, Std.ISO8601ColonTZ, 6);
        if (rest.startsWith('Z07')) return at(i, Std.ISO8601ShortTZ, 3);
        break;
      case '.':
      case ',':
        if (layout[i + 1] === '0' || layout[i + 1] === '9') {
          const ch = layout[i + 1];
          let j = i + 1;
          while (j < layout.length && layout[j] === ch) j++;
          if (!isDigitAt(layout, j)) {
            return {
              prefix: layout.slice(0, i),
              std: ch === '0' ? Std.FracSecond0 : Std.FracSecond9,
              frac: { n: j - (i + 1), sep: c },
              suffix: layout.slice(j),
            };
          }
        }
        break;
    }
  }
  return { prefix: layout, std: Std.None, suffix: '' };
}

const pad = (n: number, w: number) => {
  const s = String(Math.abs(n)).padStart(w, '0');
  return n < 0 ? '-' + s : s;
};

/** formatTime is Time.Format. Go: format.go appendFormat */
export function formatTime(t: GoTime, layout: string): string {
  const c = civil(t);
  let out = '';
  while (layout !== '') {
    const ch = nextStdChunk(layout);
    out += ch.prefix;
    if (ch.std === Std.None) break;
    layout = ch.suffix;
    switch (ch.std) {
      case Std.Year:
        out += pad(Math.abs(c.year) % 100, 2);
        break;
      case Std.LongYear:
        out += pad(c.year, 4);
        break;
      case Std.Month:
        out += SHORT_MONTHS[c.month - 1];
        break;
      case Std.LongMonth:
        out += LONG_MONTHS[c.month - 1];
        break;
      case Std.NumMonth:
        out += c.month;
        break;
      case Std.ZeroMonth:
        out += pad(c.month, 2);
        break;
      case Std.WeekDay:
        out += SHORT_DAYS[c.weekday];
        break;
      case Std.LongWeekDay:
        out += LONG_DAYS[c.weekday];
        break;
      case Std.Day:
        out += c.day;
        break;
      case Std.UnderDay:
        out += (c.day < 10 ? ' ' : '') + c.day;
        break;
      case Std.ZeroDay:
        out += pad(c.day, 2);
        break;
      case Std.UnderYearDay:
        out += (c.yday < 100 ? ' ' : '') + (c.yday < 10 ? ' ' : '') + c.yday;
        break;
      case Std.ZeroYearDay:
        out += pad(c.yday, 3);
        break;
      case Std.Hour:
        out += pad(c.hour, 2);
        break;
      case Std.Hour12:
        out += c.hour % 12 === 0 ? 12 : c.hour % 12;
        break;
      case Std.ZeroHour12:
        out += pad(c.hour % 12 === 0 ? 12 : c.hour % 12, 2);
        break;
      case Std.Minute:
        out += c.min;
        break;
      case Std.ZeroMinute:
        out += pad(c.min, 2);
        break;
      case Std.Second:
        out += c.sec;
        break;
      case Std.ZeroSecond:
        out += pad(c.sec, 2);
        break;
      case Std.PM:
        out += c.hour >= 12 ? 'PM' : 'AM';
        break;
      case Std.pm:
        out += c.hour >= 12 ? 'pm' : 'am';
        break;
      case Std.TZ:
        if (c.abbr !== '') out += c.abbr;
        else {
          const z = Math.trunc(c.offset / 60);
          out += (z < 0 ? '-' : '+') + pad(Math.floor(Math.abs(z) / 60), 2) + pad(Math.abs(z) % 60, 2);
        }
        break;
      case Std.FracSecond0:
      case Std.FracSecond9: {
        const digits = String(t.nsec).padStart(9, '0').slice(0, ch.frac!.n);
        if (ch.std === Std.FracSecond0) out += ch.frac!.sep + digits;
        else {
          const trimmed = digits.replace(/0+$/, '');
          if (trimmed !== '') out += ch.frac!.sep + trimmed;
        }
        break;
      }
      default: {
        // Numeric zones. The Z forms print Z for UTC.
        const s = ch.std;
        const iso =
          s === Std.ISO8601TZ || s === Std.ISO8601ColonTZ || s === Std.ISO8601SecondsTZ || s === Std.ISO8601ShortTZ || s === Std.ISO8601ColonSecondsTZ;
        if (c.offset === 0 && iso) {
          out += 'Z';
          break;
        }
        const abs = Math.abs(c.offset);
        const zone = Math.floor(abs / 60);
        out += c.offset < 0 ? '-' : '+';
        out += pad(Math.floor(zone / 60), 2);
        const colon = s === Std.ISO8601ColonTZ || s === Std.NumColonTZ || s === Std.ISO8601ColonSecondsTZ || s === Std.NumColonSecondsTZ;
        if (colon) out += ':';
        if (s !== Std.NumShortTZ && s !== Std.ISO8601ShortTZ) out += pad(zone % 60, 2);
        if (s === Std.ISO8601SecondsTZ || s === Std.NumSecondsTz || s === Std.NumColonSecondsTZ || s === Std.ISO8601ColonSecondsTZ) {
          if (s === Std.NumColonSecondsTZ || s === Std.ISO8601ColonSecondsTZ) out += ':';
          out += pad(abs % 60, 2);
        }
      }
    }
  }
  return out;
}

class BadValue extends Error {}

function getnum(s: string, fixed: boolean): [number, string] {
  if (!isDigitAt(s, 0)) throw new BadValue();
  if (!isDigitAt(s, 1)) {
    if (fixed) throw new BadValue();
    return [s.charCodeAt(0) - 48, s.slice(1)];
  }
  return [(s.charCodeAt(0) - 48) * 10 + s.charCodeAt(1) - 48, s.slice(2)];
}

function getnum3(s: string, fixed: boolean): [number, string] {
  let n = 0;
  let i = 0;
  for (; i < 3 && isDigitAt(s, i); i++) n = n * 10 + s.charCodeAt(i) - 48;
  if (i === 0 || (fixed && i !== 3)) throw new BadValue();
  return [n, s.slice(i)];
}

function lookupName(tab: string[], val: string): [number, string] {
  for (let i = 0; i < tab.length; i++) {
    const v = tab[i];
    if (val.length >= v.length && val.slice(0, v.length).toLowerCase() === v.toLowerCase()) return [i, val.slice(v.length)];
  }
  throw new BadValue();
}

function cutspace(s: string): string {
  let i = 0;
  while (i < s.length && s[i] === ' ') i++;
  return s.slice(i);
}

function skip(value: string, prefix: string): string {
  while (prefix.length > 0) {
    if (prefix[0] === ' ') {
      if (value.length > 0 && value[0] !== ' ') throw new BadValue();
      prefix = cutspace(prefix);
      value = cutspace(value);
      continue;
    }
    if (value.length === 0 || value[0] !== prefix[0]) throw new BadValue();
    prefix = prefix.slice(1);
    value = value.slice(1);
  }
  return value;
}

function parseSignedOffset(value: string): number {
  if (value[0] !== '-' && value[0] !== '+') return 0;
  const m = /^[0-9]+/.exec(value.slice(1));
  if (!m) return 0;
  if (Number(m[0]) > 23) return 0;
  return 1 + m[0].length;
}

function parseTimeZone(value: string): number {
  if (value.length < 3) return 0;
  if (value.startsWith('ChST') || value.startsWith('MeST')) return 4;
  if (value.startsWith('GMT')) return value.length === 3 ? 3 : 3 + parseSignedOffset(value.slice(3));
  if (value[0] === '+' || value[0] === '-') return parseSignedOffset(value);
  let n = 0;
  while (n < 6 && n < value.length && value[n] >= 'A' && value[n] <= 'Z') n++;
  switch (n) {
    case 5:
      return value[4] === 'T' ? 5 : 0;
    case 4:
      return value[3] === 'T' || value.startsWith('WITA') ? 4 : 0;
    case 3:
      return 3;
  }
  return 0;
}

function parseNanoseconds(value: string, nbytes: number): number {
  if (value[0] !== '.' && value[0] !== ',') throw new BadValue();
  if (nbytes > 10) nbytes = 10;
  const digits = value.slice(1, nbytes);
  if (!/^[0-9]+$/.test(digits)) throw new BadValue();
  return Number(digits) * 10 ** (10 - nbytes);
}

const isLeap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const DAYS_BEFORE = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];

/** dateIn is time.Date: a wall time in a location, normalized, resolved to an instant. */
export function dateIn(year: number, month: number, day: number, hour: number, min: number, sec: number, nsec: number, loc: Location): GoTime {
  const wall = civilToUnix(year, month, day, hour, min, sec);
  let unix = wall - loc.lookup(wall).offset;
  const off2 = loc.lookup(unix).offset;
  if (wall - off2 !== unix && loc.lookup(wall - off2).offset === off2) unix = wall - off2;
  return new GoTime(unix, nsec, loc);
}

/** TimeParseError carries Go's ParseError text. */
export class TimeParseError extends Error {}

/** parseTime is time.ParseInLocation(layout, value, local) where local is also the default location. Go: format.go parse */
export function parseTime(layout: string, value: string, local: Location): GoTime {
  const alayout = layout;
  const avalue = value;
  const fail = (layoutElem: string, valueElem: string, message: string): never => {
    if (message === '') {
      throw new TimeParseError(
        `parsing time ${quote(avalue)} as ${quote(alayout)}: cannot parse ${quote(valueElem)} as ${quote(layoutElem)}`,
      );
    }
    throw new TimeParseError(`parsing time ${quote(avalue)}${message}`);
  };
  let year = 0;
  let month = -1;
  let day = -1;
  let yday = -1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let z: Location | undefined;
  let zoneOffset = -1;
  let zoneName = '';
  let amSet = false;
  let pmSet = false;
  for (;;) {
    const ch = nextStdChunk(layout);
    const stdstr = layout.slice(ch.prefix.length, layout.length - ch.suffix.length);
    try {
      value = skip(value, ch.prefix);
    } catch {
      fail(ch.prefix, value, '');
    }
    if (ch.std === Std.None) {
      if (value.length !== 0) fail('', value, `: extra text: ${quote(value)}`);
      break;
    }
    layout = ch.suffix;
    const hold = value;
    let rangeErr = '';
    try {
      switch (ch.std) {
        case Std.Year: {
          if (value.length < 2) throw new BadValue();
          const p = value.slice(0, 2);
          value = value.slice(2);
          if (!/^[0-9]{2}$/.test(p)) throw new BadValue();
          year = Number(p);
          year += year >= 69 ? 1900 : 2000;
          break;
        }
        case Std.LongYear: {
          if (value.length < 4 || !isDigitAt(value, 0)) throw new BadValue();
          const p = value.slice(0, 4);
          value = value.slice(4);
          if (!/^[0-9]{4}$/.test(p)) throw new BadValue();
          year = Number(p);
          break;
        }
        case Std.Month:
          [month, value] = lookupName(SHORT_MONTHS, value);
          month++;
          break;
        case Std.LongMonth:
          [month, value] = lookupName(LONG_MONTHS, value);
          month++;
          break;
        case Std.NumMonth:
        case Std.ZeroMonth:
          [month, value] = getnum(value, ch.std === Std.ZeroMonth);
          if (month <= 0 || month > 12) rangeErr = 'month';
          break;
        case Std.WeekDay:
          [, value] = lookupName(SHORT_DAYS, value);
          break;
        case Std.LongWeekDay:
          [, value] = lookupName(LONG_DAYS, value);
          break;
        case Std.Day:
        case Std.UnderDay:
        case Std.ZeroDay:
          if (ch.std === Std.UnderDay && value[0] === ' ') value = value.slice(1);
          [day, value] = getnum(value, ch.std === Std.ZeroDay);
          break;
        case Std.UnderYearDay:
        case Std.ZeroYearDay:
          for (let i = 0; i < 2; i++) if (ch.std === Std.UnderYearDay && value[0] === ' ') value = value.slice(1);
          [yday, value] = getnum3(value, ch.std === Std.ZeroYearDay);
          break;
        case Std.Hour:
          [hour, value] = getnum(value, false);
          if (hour < 0 || hour >= 24) rangeErr = 'hour';
          break;
        case Std.Hour12:
        case Std.ZeroHour12:
          [hour, value] = getnum(value, ch.std === Std.ZeroHour12);
          if (hour < 0 || hour > 12) rangeErr = 'hour';
          break;
        case Std.Minute:
        case Std.ZeroMinute:
          [min, value] = getnum(value, ch.std === Std.ZeroMinute);
          if (min < 0 || min >= 60) rangeErr = 'minute';
          break;
        case Std.Second:
        case Std.ZeroSecond: {
          [sec, value] = getnum(value, ch.std === Std.ZeroSecond);
          if (sec < 0 || sec >= 60) {
            rangeErr = 'second';
            break;
          }
          // A fractional second in the value but not in the layout.
          if (value.length >= 2 && (value[0] === '.' || value[0] === ',') && isDigitAt(value, 1)) {
            const next = nextStdChunk(layout).std;
            if (next === Std.FracSecond0 || next === Std.FracSecond9) break;
            let n = 2;
            while (n < value.length && isDigitAt(value, n)) n++;
            nsec = parseNanoseconds(value, n);
            value = value.slice(n);
          }
          break;
        }
        case Std.PM:
        case Std.pm: {
          if (value.length < 2) throw new BadValue();
          const p = value.slice(0, 2);
          value = value.slice(2);
          const [PM, AM] = ch.std === Std.PM ? ['PM', 'AM'] : ['pm', 'am'];
          if (p === PM) pmSet = true;
          else if (p === AM) amSet = true;
          else throw new BadValue();
          break;
        }
        case Std.TZ: {
          if (value.startsWith('UTC')) {
            z = UTC;
            value = value.slice(3);
            break;
          }
          const n = parseTimeZone(value);
          if (n === 0) throw new BadValue();
          zoneName = value.slice(0, n);
          value = value.slice(n);
          break;
        }
        case Std.FracSecond0: {
          const ndigit = 1 + ch.frac!.n;
          if (value.length < ndigit) throw new BadValue();
          nsec = parseNanoseconds(value, ndigit);
          value = value.slice(ndigit);
          break;
        }
        case Std.FracSecond9: {
          if (value.length < 2 || (value[0] !== '.' && value[0] !== ',') || !isDigitAt(value, 1)) break;
          let i = 0;
          while (i + 1 < value.length && isDigitAt(value, i + 1)) i++;
          nsec = parseNanoseconds(value, 1 + i);
          value = value.slice(1 + i);
          break;
        }
        default: {
          const s = ch.std;
          const iso =
            s === Std.ISO8601TZ || s === Std.ISO8601ShortTZ || s === Std.ISO8601ColonTZ || s === Std.ISO8601SecondsTZ || s === Std.ISO8601ColonSecondsTZ;
          if (iso && value[0] === 'Z') {
            value = value.slice(1);
            z = UTC;
            break;
          }
          let parts: [string, string, string, string];
          if (s === Std.ISO8601ColonTZ || s === Std.NumColonTZ) {
            if (value.length < 6 || value[3] !== ':') throw new BadValue();
            parts = [value[0], value.slice(1, 3), value.slice(4, 6), '00'];
            value = value.slice(6);
          } else if (s === Std.NumShortTZ || s === Std.ISO8601ShortTZ) {
            if (value.length < 3) throw new BadValue();
            parts = [value[0], value.slice(1, 3), '00', '00'];
            value = value.slice(3);
          } else if (s === Std.ISO8601ColonSecondsTZ || s === Std.NumColonSecondsTZ) {
            if (value.length < 9 || value[3] !== ':' || value[6] !== ':') throw new BadValue();
            parts = [value[0], value.slice(1, 3), value.slice(4, 6), value.slice(7, 9)];
            value = value.slice(9);
          } else if (s === Std.ISO8601SecondsTZ || s === Std.NumSecondsTz) {
            if (value.length < 7) throw new BadValue();
            parts = [value[0], value.slice(1, 3), value.slice(3, 5), value.slice(5, 7)];
            value = value.slice(7);
          } else {
            if (value.length < 5) throw new BadValue();
            parts = [value[0], value.slice(1, 3), value.slice(3, 5), '00'];
            value = value.slice(5);
          }
          const [hr] = getnum(parts[1], true);
          const [mm] = getnum(parts[2], true);
          const [ss] = getnum(parts[3], true);
          if (hr > 24) rangeErr = 'time zone offset hour';
          if (mm > 60) rangeErr = 'time zone offset minute';
          if (ss > 60) rangeErr = 'time zone offset second';
          zoneOffset = (hr * 60 + mm) * 60 + ss;
          if (parts[0] === '-') zoneOffset = -zoneOffset;
          else if (parts[0] !== '+') throw new BadValue();
        }
      }
    } catch (e) {
      if (!(e instanceof BadValue)) throw e;
      if (rangeErr !== '') fail(stdstr, value, `: ${rangeErr} out of range`);
      fail(stdstr, hold, '');
    }
    if (rangeErr !== '') fail(stdstr, value, `: ${rangeErr} out of range`);
  }
  if (pmSet && hour < 12) hour += 12;
  else if (amSet && hour === 12) hour = 0;
  if (yday >= 0) {
    let d = 0;
    let m = 0;
    if (isLeap(year)) {
      if (yday === 31 + 29) {
        m = 2;
        d = 29;
      } else if (yday > 31 + 29) yday--;
    }
    if (yday < 1 || yday > 365) fail('', value, ': day-of-year out of range');
    if (m === 0) {
      m = Math.floor((yday - 1) / 31) + 1;
      if (DAYS_BEFORE[m] < yday) m++;
      d = yday - DAYS_BEFORE[m - 1];
    }
    if (month >= 0 && month !== m) fail('', value, ': day-of-year does not match month');
    month = m;
    if (day >= 0 && day !== d) fail('', value, ': day-of-year does not match day');
    day = d;
  } else {
    if (month < 0) month = 1;
    if (day < 0) day = 1;
  }
  const daysIn = month === 2 && isLeap(year) ? 29 : DAYS_BEFORE[month] - DAYS_BEFORE[month - 1];
  if (day < 1 || day > daysIn) fail('', value, ': day out of range');
  if (z) return dateIn(year, month, day, hour, min, sec, nsec, z);
  if (zoneOffset !== -1) {
    const t = dateIn(year, month, day, hour, min, sec, nsec, UTC);
    const unix = t.sec - zoneOffset;
    const info = local.lookup(unix);
    if (info.offset === zoneOffset && (zoneName === '' || info.abbr === zoneName)) return new GoTime(unix, nsec, local);
    return new GoTime(unix, nsec, fixedZone(zoneName, zoneOffset));
  }
  if (zoneName !== '') {
    const t = dateIn(year, month, day, hour, min, sec, nsec, UTC);
    const info = local.lookup(t.sec);
    if (info.abbr === zoneName) return new GoTime(t.sec - info.offset, nsec, local);
    let offset = 0;
    if (zoneName.length > 3 && zoneName.startsWith('GMT')) offset = Number(zoneName.slice(3)) * 3600;
    return new GoTime(t.sec - offset, nsec, fixedZone(zoneName, offset));
  }
  return dateIn(year, month, day, hour, min, sec, nsec, local);
}

const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  'µs': 1000n,
  'μs': 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** parseDuration is time.ParseDuration; it throws GoFuncError with Go's text. */
export function parseDuration(orig: string): bigint {
  let s = orig;
  let neg = false;
  const invalid = () => goError(`time: invalid duration ${quote(orig)}`);
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  let d = 0n;
  const LIMIT = 1n << 63n;
  while (s !== '') {
    if (!(s[0] === '.' || (s[0] >= '0' && s[0] <= '9'))) throw invalid();
    const intm = /^[0-9]*/.exec(s)![0];
    let v = intm === '' ? 0n : BigInt(intm);
    if (v > LIMIT) throw invalid();
    s = s.slice(intm.length);
    const pre = intm.length > 0;
    let post = false;
    let f = 0n;
    let scale = 1;
    if (s[0] === '.') {
      s = s.slice(1);
      const fr = /^[0-9]*/.exec(s)![0];
      post = fr.length > 0;
      let overflow = false;
      for (const c of fr) {
        if (overflow) continue;
        if (f > (LIMIT - 1n) / 10n) {
          overflow = true;
          continue;
        }
        f = f * 10n + BigInt(c.charCodeAt(0) - 48);
        scale *= 10;
      }
      s = s.slice(fr.length);
    }
    if (!pre && !post) throw invalid();
    let i = 0;
    while (i < s.length && !(s[i] === '.' || (s[i] >= '0' && s[i] <= '9'))) i++;
    if (i === 0) throw goError(`time: missing unit in duration ${quote(orig)}`);
    const u = s.slice(0, i);
    s = s.slice(i);
    const unit = UNITS[u];
    if (unit === undefined) throw goError(`time: unknown unit ${quote(u)} in duration ${quote(orig)}`);
    if (v > LIMIT / unit) throw invalid();
    v *= unit;
    if (f > 0n) {
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > LIMIT) throw invalid();
    }
    d += v;
    if (d > LIMIT) throw invalid();
  }
  if (neg) return -d;
  if (d > LIMIT - 1n) throw invalid();
  return d;
}

/** formatDuration is Duration.String: 1h2m3.5s, 1.5ms, 0s. Go: time.go Duration.format */
export function formatDuration(d: bigint): string {
  d = BigInt.asIntN(64, d);
  const neg = d < 0n;
  let u = BigInt.asUintN(64, neg ? -d : d);
  const frac = (v: bigint, prec: number): [string, bigint] => {
    let s = '';
    let print = false;
    for (let i = 0; i < prec; i++) {
      const digit = v % 10n;
      print = print || digit !== 0n;
      if (print) s = digit.toString() + s;
      v /= 10n;
    }
    return [print ? '.' + s : '', v];
  };
  let out: string;
  if (u < 1_000_000_000n) {
    if (u === 0n) return '0s';
    let prec: number;
    let unit: string;
    if (u < 1000n) {
      prec = 0;
      unit = 'ns';
    } else if (u < 1_000_000n) {
      prec = 3;
      unit = 'µs';
    } else {
      prec = 6;
      unit = 'ms';
    }
    const [f, rest] = frac(u, prec);
    out = rest.toString() + f + unit;
  } else {
    const [f, rest] = frac(u, 9);
    u = rest;
    out = (u % 60n).toString() + f + 's';
    u /= 60n;
    if (u > 0n) {
      out = (u % 60n).toString() + 'm' + out;
      u /= 60n;
      if (u > 0n) out = u.toString() + 'h' + out;
    }
  }
  return (neg ? '-' : '') + out;
}

/** roundDuration is Duration.Round (halves away from zero). */
export function roundDuration(d: bigint, m: bigint): bigint {
  if (m <= 0n) return d;
  let r = d % m;
  if (d < 0n) {
    r = -r;
    if (r + r < m) return d + r;
    return d - m + r;
  }
  if (r + r < m) return d - r;
  return d + m - r;
}

/** dateFuncs returns Sprig's date functions bound to the configured clock and local zone. Go: sprig date.go */
export function dateFuncs(o: ResolvedOptions): GoFunc[] {
  const local = localLocation(o.localZone);
  const now = (): GoTime => {
    if (!o.clock) throw goError('no clock configured: pass FuncOptions.clock to use now, date, ago and certificates');
    const ms = o.clock.now();
    const whole = Math.floor(ms);
    return GoTime.fromNanos(BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6)), local);
  };
  const asTime = (date: GoValue, ints: readonly string[]): GoTime => {
    if (date instanceof GoTime) return date;
    if (typeof date === 'bigint') return new GoTime(Number(date), 0, local);
    if (date instanceof GoInt && ints.includes(date.type)) return new GoTime(Number(date.value), 0, local);
    return now();
  };
  const dateInZone = (fmt: string, date: GoValue, zone: string): string => {
    const t = asTime(date, ['int', 'int32']);
    const loc = loadLocation(zone, local) ?? UTC;
    return formatTime(t.in(loc), fmt);
  };
  const since = (t: GoTime): bigint => now().nanos() - t.nanos();
  const dateModify = (fmt: string, date: GoTime, must: boolean): GoTime => {
    try {
      return date.add(parseDuration(fmt));
    } catch (e) {
      if (must) throw e;
      return date;
    }
  };
  const toDate = (fmt: string, s: string): GoTime => {
    try {
      return parseTime(fmt, s, local);
    } catch (e) {
      if (e instanceof TimeParseError) throw goError(e.message);
      throw e;
    }
  };
  return [
    defineFunc('now', '() time.Time', now),
    defineFunc('date', '(string, interface {}) string', (fmt: string, d: GoValue) => dateInZone(fmt, d, 'Local')),
    ...['dateInZone', 'date_in_zone'].map((n) => defineFunc(n, '(string, interface {}, string) string', dateInZone)),
    defineFunc('htmlDate', '(interface {}) string', (d: GoValue) => dateInZone('2006-01-02', d, 'Local')),
    defineFunc('htmlDateInZone', '(interface {}, string) string', (d: GoValue, z: string) => dateInZone('2006-01-02', d, z)),
    ...['dateModify', 'date_modify'].map((n) =>
      defineFunc(n, '(string, time.Time) time.Time', (f: string, d: GoTime) => dateModify(f, d, false)),
    ),
    ...['mustDateModify', 'must_date_modify'].map((n) =>
      defineFunc(n, '(string, time.Time) (time.Time, error)', (f: string, d: GoTime) => dateModify(f, d, true)),
    ),
    defineFunc('ago', '(interface {}) string', (d: GoValue) =>
      formatDuration(roundDuration(since(asTime(d, ['int'])), 1_000_000_000n)),
    ),
    defineFunc('duration', '(interface {}) string', (sec: GoValue) => {
      let n = 0n;
      if (typeof sec === 'string') {
        const r = parseInt64(sec, 10);
        n = r.ok ? r.value : (r.rangeValue ?? 0n);
      } else if (typeof sec === 'bigint') n = sec;
      return formatDuration(wrapInt64(n * 1_000_000_000n));
    }),
    defineFunc('durationRound', '(interface {}) string', (v: GoValue) => {
      let d = 0n;
      if (typeof v === 'string') {
        try {
          d = parseDuration(v);
        } catch {
          d = 0n;
        }
      } else if (typeof v === 'bigint') d = v;
      else if (v instanceof GoTime) d = since(v);
      let u = BigInt.asUintN(64, d);
      if (d < 0n) u = BigInt.asUintN(64, -u);
      const hour = 3_600_000_000_000n;
      const steps: [bigint, string][] = [
        [hour * 24n * 365n, 'y'],
        [hour * 24n * 30n, 'mo'],
        [hour * 24n, 'd'],
        [hour, 'h'],
        [60_000_000_000n, 'm'],
        [1_000_000_000n, 's'],
      ];
      for (const [unit, suffix] of steps) if (u > unit) return (u / unit).toString() + suffix;
      return '0s';
    }),
    defineFunc('toDate', '(string, string) time.Time', (f: string, s: string) => {
      try {
        return toDate(f, s);
      } catch {
        return zeroTime();
      }
    }),
    defineFunc('mustToDate', '(string, string) (time.Time, error)', toDate),
    defineFunc('unixEpoch', '(time.Time) string', (t: GoTime) => String(t.sec)),
  ];
}
