// url.ts: Sprig's urlParse/urlJoin over a port of the parts of Go's net/url they use (Parse, URL.String,
// Userinfo, escaping). Go: net/url/url.go.
import type { GoFunc, GoMap, GoValue } from '../gotemplate/index.js';
import { quote } from '../gotemplate/index.js';
import { newGoMap } from './collections.js';
import { defineFunc, goError, NIL_DEREFERENCE } from './define.js';
import { kindOf } from './reflect.js';
import { utf8Bytes, utf8String } from './unicode.js';

type Mode = 'path' | 'pathSegment' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

/** URL holds the fields of Go's url.URL that urlParse and urlJoin read or write. */
export interface GoURL {
  scheme: string;
  opaque: string;
  user?: { username: string; password?: string };
  host: string;
  path: string;
  rawPath: string;
  omitHost: boolean;
  forceQuery: boolean;
  rawQuery: string;
  fragment: string;
}

class URLError extends Error {}

function isAlnum(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
}

/** shouldEscape is net/url shouldEscape. */
function shouldEscape(c: number, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  const ch = String.fromCharCode(c);
  if ((mode === 'host' || mode === 'zone') && `!$&'()*+,;=:[]<>"`.includes(ch)) return false;
  if ('-_.~'.includes(ch)) return false;
  if ('$&+,/:;=?@'.includes(ch)) {
    switch (mode) {
      case 'path':
        return ch === '?';
      case 'pathSegment':
        return ch === '/' || ch === ';' || ch === ',' || ch === '?';
      case 'userPassword':
        return ch === '@' || ch === '/' || ch === '?' || ch === ':';
      case 'queryComponent':
        return true;
      case 'fragment':
        return false;
    }
  }
  if (mode === 'fragment' && '!()*'.includes(ch)) return false;
  return true;
}

/** escape is net/url escape. */
function escape(s: string, mode: Mode): string {
  let out = '';
  for (const c of utf8Bytes(s)) {
    if (shouldEscape(c, mode)) {
      out += c === 0x20 && mode === 'queryComponent' ? '+' : '%' + c.toString(16).toUpperCase().padStart(2, '0');
    } else out += String.fromCharCode(c);
  }
  return out;
}

const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** unescape is net/url unescape with its EscapeError and InvalidHostError texts. */
function unescape(s: string, mode: Mode): string {
  const b = utf8Bytes(s);
  for (let i = 0; i < s.length; ) {
    const c = s[i];
    if (c === '%') {
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) {
        throw new URLError(`invalid URL escape ${quote(s.slice(i, i + 3))}`);
      }
      if (mode === 'host' && parseInt(s[i + 1], 16) < 8 && s.slice(i, i + 3) !== '%25') {
        throw new URLError(`invalid URL escape ${quote(s.slice(i, i + 3))}`);
      }
      i += 3;
    } else {
      const code = c.charCodeAt(0);
      if ((mode === 'host' || mode === 'zone') && code < 0x80 && shouldEscape(code, mode)) {
        throw new URLError(`invalid character ${quote(c)} in host name`);
      }
      i++;
    }
  }
  const out: number[] = [];
  for (let i = 0; i < b.length; i++) {
    if (b[i] === 0x25) {
      out.push(parseInt(String.fromCharCode(b[i + 1], b[i + 2]), 16));
      i += 2;
    } else if (b[i] === 0x2b && mode === 'queryComponent') out.push(0x20);
    else out.push(b[i]);
  }
  return utf8String(Uint8Array.from(out));
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new URLError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function validOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new URLError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${quote(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) {
      const host1 = unescape(host.slice(0, zone), 'host');
      const host2 = unescape(host.slice(zone, i), 'zone');
      const host3 = unescape(host.slice(i), 'host');
      return host1 + host2 + host3;
    }
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${quote(colonPort)} after host`);
    }
  }
  return unescape(host, 'host');
}

function parseAuthority(authority: string): { user?: GoURL['user']; host: string } {
  const i = authority.lastIndexOf('@');
  const host = parseHost(i < 0 ? authority : authority.slice(i + 1));
  if (i < 0) return { host };
  const userinfo = authority.slice(0, i);
  if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) throw new URLError('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  if (colon < 0) return { user: { username: unescape(userinfo, 'userPassword') }, host };
  return {
    user: {
      username: unescape(userinfo.slice(0, colon), 'userPassword'),
      password: unescape(userinfo.slice(colon + 1), 'userPassword'),
    },
    host,
  };
}

function parseNoFragment(raw: string): GoURL {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new URLError('net/url: invalid control character in URL');
  const url: GoURL = {
    scheme: '',
    opaque: '',
    host: '',
    path: '',
    rawPath: '',
    omitHost: false,
    forceQuery: false,
    rawQuery: '',
    fragment: '',
  };
  if (raw === '*') {
    url.path = '*';
    return url;
  }
  let [scheme, rest] = getScheme(raw);
  url.scheme = scheme.toLowerCase();
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    url.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      url.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') {
      url.opaque = rest;
      return url;
    }
    const segment = rest.split('/')[0];
    if (segment.includes(':')) throw new URLError('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const i = authority.indexOf('/');
    if (i >= 0) {
      rest = authority.slice(i);
      authority = authority.slice(0, i);
    }
    const a = parseAuthority(authority);
    url.user = a.user;
    url.host = a.host;
  } else if (url.scheme !== '' && rest.startsWith('/')) {
    url.omitHost = true;
  }
  url.path = unescape(rest, 'path');
  url.rawPath = escape(url.path, 'path') === rest ? '' : rest;
  return url;
}

/** parseURL is url.Parse; it throws URLError with Go's `parse "…": …` text. */
export function parseURL(raw: string): GoURL {
  const hash = raw.indexOf('#');
  const u = hash >= 0 ? raw.slice(0, hash) : raw;
  const frag = hash >= 0 ? raw.slice(hash + 1) : '';
  let url: GoURL;
  try {
    url = parseNoFragment(u);
  } catch (e) {
    if (e instanceof URLError) throw new URLError(`parse ${quote(u)}: ${e.message}`);
    throw e;
  }
  if (frag === '') return url;
  try {
    url.fragment = unescape(frag, 'fragment');
  } catch (e) {
    if (e instanceof URLError) throw new URLError(`parse ${quote(raw)}: ${e.message}`);
    throw e;
  }
  return url;
}

function userString(u: NonNullable<GoURL['user']>): string {
  let s = escape(u.username, 'userPassword');
  if (u.password !== undefined) s += ':' + escape(u.password, 'userPassword');
  return s;
}

function hostname(hostPort: string): string {
  // Go: url.go splitHostPort
  let host = hostPort;
  const colon = host.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(host.slice(colon))) host = host.slice(0, colon);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return host;
}

/** urlString is URL.String. */
export function urlString(u: GoURL): string {
  let buf = '';
  if (u.scheme !== '') buf += u.scheme + ':';
  if (u.opaque !== '') buf += u.opaque;
  else {
    if (u.scheme !== '' || u.host !== '' || u.user !== undefined) {
      if (!(u.omitHost && u.host === '' && u.user === undefined)) {
        if (u.host !== '' || u.path !== '' || u.user !== undefined) buf += '//';
        if (u.user !== undefined) buf += userString(u.user) + '@';
        if (u.host !== '') buf += escape(u.host, 'host');
      }
    }
    const path = u.path === '*' ? '*' : escape(u.path, 'path');
    if (path !== '' && path[0] !== '/' && u.host !== '') buf += '/';
    if (buf === '' && path.split('/')[0].includes(':')) buf += './';
    buf += path;
  }
  if (u.forceQuery || u.rawQuery !== '') buf += '?' + u.rawQuery;
  if (u.fragment !== '') buf += '#' + escape(u.fragment, 'fragment');
  return buf;
}

function dictGetOrEmpty(d: GoMap, key: string): string {
  if (d === null || !Object.hasOwn(d, key)) return '';
  const v: GoValue = d[key];
  if (v === null || v === undefined) throw goError(NIL_DEREFERENCE);
  if (typeof v !== 'string') {
    throw goError(`unable to parse ${key} key, must be of type string, but ${kindOf(v)} found`);
  }
  return v;
}

/** urlFuncs returns Sprig's urlParse and urlJoin. Go: url.go */
export function urlFuncs(): GoFunc[] {
  return [
    defineFunc('urlParse', '(string) map[string]interface {}', (v: string) => {
      let u: GoURL;
      try {
        u = parseURL(v);
      } catch (e) {
        if (e instanceof URLError) throw goError(`unable to parse url: ${e.message}`);
        throw e;
      }
      const d = newGoMap();
      d.scheme = u.scheme;
      d.host = u.host;
      d.hostname = hostname(u.host);
      d.path = u.path;
      d.query = u.rawQuery;
      d.opaque = u.opaque;
      d.fragment = u.fragment;
      d.userinfo = u.user ? userString(u.user) : '';
      return d;
    }),
    defineFunc('urlJoin', '(map[string]interface {}) string', (d: GoMap) => {
      const u: GoURL = {
        scheme: dictGetOrEmpty(d, 'scheme'),
        host: dictGetOrEmpty(d, 'host'),
        path: dictGetOrEmpty(d, 'path'),
        rawQuery: dictGetOrEmpty(d, 'query'),
        opaque: dictGetOrEmpty(d, 'opaque'),
        fragment: dictGetOrEmpty(d, 'fragment'),
        rawPath: '',
        omitHost: false,
        forceQuery: false,
      };
      const userinfo = dictGetOrEmpty(d, 'userinfo');
      if (userinfo !== '') {
        try {
          u.user = parseURL(`proto://${userinfo}@host`).user;
        } catch (e) {
          if (e instanceof URLError) throw goError(`unable to parse userinfo in dict: ${e.message}`);
          throw e;
        }
      }
      return urlString(u);
    }),
  ];
}
