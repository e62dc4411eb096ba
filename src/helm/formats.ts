// formats.ts: JSON Schema `format` checks as gojsonschema v1.2.0 (Helm v3.17's) performs them
// (format_checkers.go): a value that is not a string never matches a known format; unknown formats always pass. Go's net.ParseIP, net/mail.ParseAddress, url.Parse and time.Parse are
// approximated by the rules below, which agree with them on ordinary input.

const rxHostname = /^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9])(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9]))*$/;
const rxUUID = /^[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$/i;
const rxJSONPointer = /^(?:\/(?:[^~/]|~0|~1)*)*$/;
const rxRelJSONPointer = /^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$/;
const rxURITemplate = /^([^{]*({[^}]*})?)*$/;

function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255);
}

function isIPv6(s: string): boolean {
  let rest = s;
  let groupsMax = 8;
  const lastColon = rest.lastIndexOf(':');
  if (rest.slice(lastColon + 1).includes('.')) {
    if (!isIPv4(rest.slice(lastColon + 1))) return false;
    rest = rest.slice(0, lastColon + 1) + '0:0';
  }
  const dbl = rest.split('::');
  if (dbl.length > 2) return false;
  const groups = (x: string) => (x === '' ? [] : x.split(':'));
  const all = dbl.flatMap(groups);
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  if (dbl.length === 2) return all.length < groupsMax;
  groupsMax = 8;
  return all.length === groupsMax;
}

/** parseIP is net.ParseIP != nil. */
function parseIP(s: string): boolean {
  return s.includes(':') ? isIPv6(s) : isIPv4(s);
}

const daysIn = (y: number, m: number) => [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];

function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysIn(y, mo);
}

function isTime(s: string, zone: 'none' | 'required', frac: boolean): boolean {
  const m = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.exec(s);
  if (!m) return false;
  if (Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3]) > 59) return false;
  if (m[4] !== undefined && !frac) return false;
  if (zone === 'none' && m[5] !== undefined) return false;
  if (zone === 'required' && m[5] === undefined) return false;
  if (m[5] !== undefined && m[5] !== 'Z' && (Number(m[5].slice(1, 3)) > 23 || Number(m[5].slice(4)) > 59)) return false;
  return true;
}

function isDateTime(s: string): boolean {
  // "15:04:05", "15:04:05Z07:00", "2006-01-02", RFC3339, RFC3339Nano (Go accepts a fraction after seconds).
  if (isTime(s, 'none', true) || isTime(s, 'required', true) || isDate(s)) return true;
  const t = s.indexOf('T');
  return t === 10 && isDate(s.slice(0, 10)) && isTime(s.slice(11), 'required', true);
}

/** urlParses approximates url.Parse succeeding: no control characters, valid %-escapes, a sane scheme. */
function urlParses(s: string): { ok: boolean; scheme: string; path: string } {
  if (/[\x00-\x1f\x7f]/.test(s)) return { ok: false, scheme: '', path: '' };
  if (/%(?![0-9a-fA-F]{2})/.test(s.split('#')[0])) return { ok: false, scheme: '', path: '' };
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(s);
  if (!m && /^[^/?#]*:/.test(s) && !s.startsWith('/')) {
    // "first path segment in URL cannot contain colon"
    return { ok: false, scheme: '', path: '' };
  }
  const rest = m ? s.slice(m[0].length) : s;
  const path = rest.replace(/^\/\/[^/?#]*/, '').split(/[?#]/)[0];
  return { ok: true, scheme: m ? m[1] : '', path };
}

function isEmail(s: string): boolean {
  const addr = /^[^<>]*<([^<>]+)>\s*$/.exec(s)?.[1] ?? s;
  return /^[^\s@<>()[\]\\,;:"]+(\.[^\s@<>()[\]\\,;:"]+)*@[^\s@<>()[\]\\,;:"]+$/.test(addr.trim()) && !/\.\./.test(addr) && !addr.startsWith('.');
}

const KNOWN = new Set(['date', 'time', 'date-time', 'hostname', 'email', 'idn-email', 'ipv4', 'ipv6', 'uri', 'uri-reference', 'iri', 'iri-reference', 'uri-template', 'uuid', 'regex', 'json-pointer', 'relative-json-pointer']);

/** isFormat is FormatCheckers.IsFormat(name, value). */
export function isFormat(name: string, value: unknown): boolean {
  const known = KNOWN.has(name);
  if (typeof value !== 'string') return !known;
  const s = value;
  switch (name) {
    case 'date':
      return isDate(s);
    case 'time':
      return isTime(s, 'required', true) || isTime(s, 'none', true);
    case 'date-time':
      return isDateTime(s);
    case 'hostname':
      return rxHostname.test(s) && s.length < 256;
    case 'email':
    case 'idn-email':
      return isEmail(s);
    case 'ipv4':
      return parseIP(s) && s.includes('.');
    case 'ipv6':
      return parseIP(s) && s.includes(':');
    case 'uri':
    case 'iri': {
      const u = urlParses(s);
      return u.ok && u.scheme !== '' && !s.includes('\\');
    }
    case 'uri-reference':
    case 'iri-reference':
      return urlParses(s).ok && !s.includes('\\');
    case 'uri-template': {
      const u = urlParses(s);
      return u.ok && !s.includes('\\') && rxURITemplate.test(u.path);
    }
    case 'uuid':
      return rxUUID.test(s);
    case 'regex':
      if (s === '') return true;
      try {
        new RegExp(s, 'u');
        return true;
      } catch {
        return false;
      }
    case 'json-pointer':
      return rxJSONPointer.test(s);
    case 'relative-json-pointer':
      return rxRelJSONPointer.test(s);
  }
  return true;
}
