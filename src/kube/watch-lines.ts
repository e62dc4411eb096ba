// Watch stream decoding: splits the byte stream into event lines and parses them. A status write of a large object
// (an EventReport carrying a hundred collected resources: ~130 KB) sends the whole object again with an unchanged
// spec. Parsing such a line costs its full size twice — the line as one string (above V8's 128 KiB regular-object limit
// that string is a large-object allocation: an mmap and page faults each time) and JSON.parse over all of it. For
// large lines the decoder finds the top-level object's `spec` in the bytes and parses it apart from the rest (neither
// part as a whole-line string); when it is byte-for-byte the spec of a recent event of this watch, it reuses that
// spec's parsed value instead. Objects from one watch may
// therefore share their spec object; cached objects are read-only (see README.md).

/** Lines at least this long are checked for a reusable spec; below it a plain parse is as cheap. */
export const LARGE_LINE_BYTES = 32 * 1024;
/** Specs at least this long are remembered. */
const MIN_SPEC_BYTES = 16 * 1024;
/** How many recent large specs a watch remembers (events of several large objects interleave under load). */
const SPEC_MEMO_SIZE = 4;

// A string no server sends as a spec.
const PLACEHOLDER = '\u0000ripple-reused-spec';
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

interface SpecEntry {
  bytes: Buffer;
  value: unknown;
}

/** WatchLineDecoder turns chunks of a watch response into parsed events, one per line, in order. */
export class WatchLineDecoder {
  private partial: Buffer[] = [];
  private partialLength = 0;
  private readonly memo: SpecEntry[] = [];
  /** Large lines by how they were parsed: spec reused, spec parsed apart from the rest, whole (for tests). */
  readonly stats = { reused: 0, parsedApart: 0, parsedWhole: 0 };

  /**
   * push hands each complete line of chunk (with what earlier chunks left) to onLine; onLine returns false to stop.
   * A line that is not JSON throws a SyntaxError carrying the start of the line as `lineStart`.
   */
  push(chunk: Buffer, onLine: (event: { type?: string; object?: unknown }) => boolean): void {
    let from = 0;
    let nl: number;
    while ((nl = chunk.indexOf(0x0a, from)) >= 0) {
      let line = chunk.subarray(from, nl);
      from = nl + 1;
      if (this.partialLength > 0) {
        this.partial.push(line);
        line = Buffer.concat(this.partial, this.partialLength + line.length);
        this.partial = [];
        this.partialLength = 0;
      }
      if (isBlank(line)) continue;
      if (!onLine(this.decode(line))) return;
    }
    if (from < chunk.length) {
      const rest = from === 0 ? chunk : chunk.subarray(from);
      this.partial.push(rest);
      this.partialLength += rest.length;
    }
  }

  /** decode parses one event line. */
  decode(line: Buffer): { type?: string; object?: unknown } {
    if (line.length < LARGE_LINE_BYTES) return parseLine(line);
    const span = specSpan(line);
    if (!span || span[1] - span[0] < MIN_SPEC_BYTES) return parseLine(line);
    const [start, end] = span;
    const spec = line.subarray(start, end);
    // The line with its spec replaced by a placeholder: the top-level spec of what parses is the placeholder exactly
    // when the span was the value JSON.parse keeps for that member (a repeated "spec" key would not be).
    const ev = parseText(line.toString('utf8', 0, start) + PLACEHOLDER_JSON + line.toString('utf8', end), line);
    const obj = ev.object as { spec?: unknown } | undefined;
    if (!obj || typeof obj !== 'object' || obj.spec !== PLACEHOLDER) {
      this.stats.parsedWhole++;
      return parseLine(line);
    }
    const hit = this.memo.findIndex((e) => e.bytes.length === spec.length && e.bytes.equals(spec));
    if (hit >= 0) {
      const entry = this.memo[hit]!;
      if (hit > 0) this.memo.unshift(...this.memo.splice(hit, 1));
      obj.spec = entry.value;
      this.stats.reused++;
      return ev;
    }
    const value = parseText(spec.toString('utf8'), line);
    obj.spec = value;
    this.stats.parsedApart++;
    if (value && typeof value === 'object') {
      this.memo.unshift({ bytes: Buffer.from(spec), value });
      if (this.memo.length > SPEC_MEMO_SIZE) this.memo.length = SPEC_MEMO_SIZE;
    }
    return ev;
  }
}

function parseLine(line: Buffer): { type?: string; object?: unknown } {
  return parseText(line.toString('utf8'), line);
}

function parseText(text: string, line: Buffer): { type?: string; object?: unknown } {
  try {
    return JSON.parse(text) as { type?: string; object?: unknown };
  } catch (err) {
    throw Object.assign(err as Error, { lineStart: line.toString('utf8', 0, Math.min(line.length, 200)) });
  }
}

function isBlank(line: Buffer): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/**
 * specSpan finds the byte span of `object.spec` in a watch event line ({"type":…,"object":{…,"spec":…}}), or
 * undefined when the line is not shaped so (or not well-formed: the parse that follows reports that).
 */
export function specSpan(line: Buffer): [number, number] | undefined {
  const object = memberValue(line, skipSpace(line, 0), 'object');
  if (object === undefined || line[object] !== 0x7b) return undefined;
  const spec = memberValue(line, object, 'spec');
  if (spec === undefined) return undefined;
  const end = skipValue(line, spec);
  return end < 0 ? undefined : [spec, end];
}

// memberValue returns where the value of member `key` of the object at `at` ('{') begins.
function memberValue(b: Buffer, at: number, key: string): number | undefined {
  if (b[at] !== 0x7b) return undefined;
  let i = skipSpace(b, at + 1);
  while (i < b.length && b[i] === QUOTE) {
    const keyEnd = skipString(b, i);
    if (keyEnd < 0) return undefined;
    const isKey = keyEnd - i - 2 === key.length && b.toString('latin1', i + 1, keyEnd - 1) === key;
    i = skipSpace(b, keyEnd);
    if (b[i] !== 0x3a) return undefined;
    i = skipSpace(b, i + 1);
    if (isKey) return i;
    i = skipValue(b, i);
    if (i < 0) return undefined;
    i = skipSpace(b, i);
    if (b[i] !== 0x2c) return undefined;
    i = skipSpace(b, i + 1);
  }
  return undefined;
}

// skipString returns the index just past the string starting at `at` ('"'), or -1.
function skipString(b: Buffer, at: number): number {
  let j = at + 1;
  for (;;) {
    j = b.indexOf(QUOTE, j);
    if (j < 0) return -1;
    let k = j - 1;
    while (b[k] === BACKSLASH) k--;
    if ((j - 1 - k) % 2 === 0) return j + 1;
    j++;
  }
}

// skipValue returns the index just past the JSON value starting at `at`, or -1.
function skipValue(b: Buffer, at: number): number {
  const c = b[at];
  if (c === QUOTE) return skipString(b, at);
  if (c !== 0x7b && c !== 0x5b) {
    let i = at;
    while (i < b.length) {
      const d = b[i]!;
      if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
      i++;
    }
    return i > at ? i : -1;
  }
  let depth = 0;
  let i = at;
  while (i < b.length) {
    const d = b[i]!;
    if (d === QUOTE) {
      i = skipString(b, i);
      if (i < 0) return -1;
      continue;
    }
    if (d === 0x7b || d === 0x5b) depth++;
    else if (d === 0x7d || d === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

function skipSpace(b: Buffer, i: number): number {
  while (i < b.length) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}
