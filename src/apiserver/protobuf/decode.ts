// Decoding of Kubernetes protobuf request bodies (application/vnd.kubernetes.protobuf) into JSON objects. kubectl's
// typed clients (`kubectl create namespace|configmap|secret|deployment…`, `kubectl expose`) send built-in objects
// this way and never fall back to JSON, so the server must read them. Responses stay JSON, which those clients accept.
// Go: k8s.io/apimachinery/pkg/runtime/serializer/protobuf (the "k8s\0" envelope around runtime.Unknown)
import { MESSAGES, ROOTS } from './messages.generated.js';

/** ProtobufError is a body that is not a Kubernetes protobuf envelope of a known kind. */
export class ProtobufError extends Error {
  override readonly name = 'ProtobufError';
}

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

class Reader {
  pos = 0;
  constructor(
    readonly buf: Buffer,
    readonly end = buf.length,
  ) {}
  get done(): boolean {
    return this.pos >= this.end;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.end) throw new ProtobufError('proto: truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 70n) throw new ProtobufError('proto: varint overflow');
    }
  }
  bytes(): Buffer {
    const n = Number(this.varint());
    if (this.pos + n > this.end) throw new ProtobufError('proto: truncated field');
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
  skip(wire: number): void {
    switch (wire) {
      case 0:
        this.varint();
        return;
      case 1:
        this.pos += 8;
        return;
      case 2:
        this.bytes();
        return;
      case 5:
        this.pos += 4;
        return;
      default:
        throw new ProtobufError(`proto: unsupported wire type ${wire}`);
    }
  }
}

// Two's complement: int32/int64 negatives arrive as 64-bit varints.
function signed(v: bigint): number {
  return Number(v >= 1n << 63n ? v - (1n << 64n) : v);
}

function scalar(type: string, wire: number, r: Reader): unknown {
  switch (type) {
    case 'string':
      return r.bytes().toString('utf8');
    case 'bytes':
      return r.bytes().toString('base64');
    case 'bool':
      return r.varint() !== 0n;
    case 'int32':
    case 'int64':
      return signed(r.varint());
    case 'uint32':
    case 'uint64':
      return Number(r.varint());
    case 'double': {
      const v = r.buf.readDoubleLE(r.pos);
      r.pos += 8;
      return v;
    }
    case 'float': {
      const v = r.buf.readFloatLE(r.pos);
      r.pos += 4;
      return v;
    }
    default:
      r.skip(wire);
      return undefined;
  }
}

function isZero(v: unknown): boolean {
  if (v === '' || v === 0 || v === false || v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  return false;
}

const TIME = 'k8s.io.apimachinery.pkg.apis.meta.v1.Time';
const MICRO_TIME = 'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime';
const DURATION = 'k8s.io.apimachinery.pkg.apis.meta.v1.Duration';
const QUANTITY = 'k8s.io.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString';
const RAW_EXTENSION = 'k8s.io.apimachinery.pkg.runtime.RawExtension';
const FIELDS_V1 = 'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1';

// Go's time.Duration String() for whole units.
function goDuration(ns: number): string {
  if (ns === 0) return '0s';
  const neg = ns < 0;
  let s = Math.abs(ns) / 1e9;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const out = (h ? `${h}h` : '') + (h || m ? `${m}m` : '') + `${Number(s.toFixed(9))}s`;
  return neg ? `-${out}` : out;
}

// Messages whose JSON form is not an object (Go types with custom marshalers).
function special(name: string, r: Reader): { value: unknown } | undefined {
  switch (name) {
    case TIME:
    case MICRO_TIME: {
      let seconds = 0;
      let nanos = 0;
      let any = false;
      while (!r.done) {
        const key = Number(r.varint());
        if (key >> 3 === 1) seconds = signed(r.varint());
        else if (key >> 3 === 2) nanos = signed(r.varint());
        else r.skip(key & 7);
        any = true;
      }
      if (!any) return { value: null };
      const iso = new Date(seconds * 1000).toISOString();
      if (name === TIME) return { value: iso.replace(/\.\d{3}Z$/, 'Z') };
      return { value: `${iso.slice(0, 19)}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` };
    }
    case DURATION: {
      let ns = 0;
      while (!r.done) {
        const key = Number(r.varint());
        if (key >> 3 === 1) ns = signed(r.varint());
        else r.skip(key & 7);
      }
      return { value: goDuration(ns) };
    }
    case QUANTITY: {
      let s = '';
      while (!r.done) {
        const key = Number(r.varint());
        if (key >> 3 === 1) s = r.bytes().toString('utf8');
        else r.skip(key & 7);
      }
      return { value: s };
    }
    case INT_OR_STRING: {
      let type = 0;
      let intVal = 0;
      let strVal = '';
      while (!r.done) {
        const key = Number(r.varint());
        const f = key >> 3;
        if (f === 1) type = signed(r.varint());
        else if (f === 2) intVal = signed(r.varint());
        else if (f === 3) strVal = r.bytes().toString('utf8');
        else r.skip(key & 7);
      }
      return { value: type === 1 ? strVal : intVal };
    }
    case 'k8s.io.api.authorization.v1.ExtraValue':
    case 'k8s.io.api.authentication.v1.ExtraValue': {
      // Go: type ExtraValue []string — a JSON array, not an object.
      const items: string[] = [];
      while (!r.done) {
        const key = Number(r.varint());
        if (key >> 3 === 1) items.push(r.bytes().toString('utf8'));
        else r.skip(key & 7);
      }
      return { value: items };
    }
    case RAW_EXTENSION:
    case FIELDS_V1: {
      let raw: Buffer | undefined;
      while (!r.done) {
        const key = Number(r.varint());
        if (key >> 3 === 1) raw = r.bytes();
        else r.skip(key & 7);
      }
      if (!raw || raw.length === 0) return { value: null };
      try {
        return { value: JSON.parse(raw.toString('utf8')) };
      } catch {
        throw new ProtobufError(`proto: ${name.split('.').pop()} does not hold JSON`);
      }
    }
    default:
      return undefined;
  }
}

function value(type: string, wire: number, r: Reader): unknown {
  if (MESSAGES[type] || type.startsWith('k8s.io.')) {
    if (wire !== 2) throw new ProtobufError(`proto: wrong wire type for ${type}`);
    const b = r.bytes();
    return message(type, new Reader(b));
  }
  return scalar(type, wire, r);
}

function message(name: string, r: Reader): unknown {
  const sp = special(name, r);
  if (sp) return sp.value;
  const fields = MESSAGES[name];
  if (!fields) throw new ProtobufError(`proto: no decoder for message ${name}`);
  const byNum = new Map(fields.map((f) => [f[0], f]));
  const out: Record<string, unknown> = {};
  while (!r.done) {
    const key = Number(r.varint());
    const num = key >> 3;
    const wire = key & 7;
    const f = byNum.get(num);
    if (!f) {
      r.skip(wire);
      continue;
    }
    const [, json, type, flags] = f;
    if (flags & 2) {
      const [kt, vt] = type.split(',');
      const entry = new Reader(r.bytes());
      let k: unknown = '';
      let v: unknown = MESSAGES[vt] ? {} : vt === 'string' || vt === 'bytes' ? '' : 0;
      while (!entry.done) {
        const ek = Number(entry.varint());
        if (ek >> 3 === 1) k = value(kt, ek & 7, entry);
        else if (ek >> 3 === 2) v = value(vt, ek & 7, entry);
        else entry.skip(ek & 7);
      }
      const m = (out[json] ??= {}) as Record<string, unknown>;
      m[String(k)] = v;
    } else if (flags & 1) {
      const list = (out[json] ??= []) as unknown[];
      // Packed repeated scalars arrive as one length-delimited run.
      if (wire === 2 && type !== 'string' && type !== 'bytes' && !MESSAGES[type] && !type.startsWith('k8s.io.')) {
        const packed = new Reader(r.bytes());
        while (!packed.done) list.push(scalar(type, type === 'double' ? 1 : type === 'float' ? 5 : 0, packed));
      } else list.push(value(type, wire, r));
    } else if (flags & 8) {
      const inner = value(type, wire, r);
      if (inner && typeof inner === 'object') Object.assign(out, inner);
    } else out[json] = value(type, wire, r);
  }
  // Go's omitempty drops zero scalars, empty slices and maps, never structs (a zero metav1.Time is null).
  for (const [, json, type, flags] of fields) {
    const struct = !(flags & 3) && type.startsWith('k8s.io.');
    if (flags & 4 && !struct && json in out) {
      const v = out[json];
      if (isZero(v) || (flags & 2 && v && typeof v === 'object' && Object.keys(v).length === 0)) delete out[json];
    }
  }
  return out;
}

/** isProtobuf tells whether a body starts with the Kubernetes protobuf magic. */
export function isProtobuf(buf: Buffer): boolean {
  return buf.length >= 4 && buf.subarray(0, 4).equals(MAGIC);
}

/** decodeProtobufObject decodes a Kubernetes protobuf body (envelope + runtime.Unknown) into a JSON object. */
export function decodeProtobufObject(buf: Buffer): Record<string, unknown> {
  if (!isProtobuf(buf)) throw new ProtobufError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  const r = new Reader(buf);
  r.pos = 4;
  let apiVersion = '';
  let kind = '';
  let raw: Buffer | undefined;
  while (!r.done) {
    const key = Number(r.varint());
    const f = key >> 3;
    if (f === 1) {
      const tm = new Reader(r.bytes());
      while (!tm.done) {
        const k = Number(tm.varint());
        if (k >> 3 === 1) apiVersion = tm.bytes().toString('utf8');
        else if (k >> 3 === 2) kind = tm.bytes().toString('utf8');
        else tm.skip(k & 7);
      }
    } else if (f === 2) raw = r.bytes();
    else r.skip(key & 7);
  }
  const name = ROOTS[`${apiVersion}/${kind}`];
  if (!name) throw new ProtobufError(`no kind "${kind}" is registered for version "${apiVersion}" in protobuf`);
  const obj = message(name, new Reader(raw ?? Buffer.alloc(0))) as Record<string, unknown>;
  return { apiVersion, kind, ...obj };
}

/**
 * dropOmitEmpty removes, in place, what Go's encoding/json would not write back for a built-in kind: omitempty fields
 * holding zero scalars, empty slices or empty maps (`selector: {}`, `ports: []`, `clusterIP: ""`), at every depth.
 * kube-apiserver decodes a body into the typed object and encodes that, so such fields never come back; structs are
 * never dropped. Unknown kinds (no generated message) are left alone.
 */
export function dropOmitEmpty(apiVersion: string, kind: string, obj: Record<string, unknown>): void {
  const name = ROOTS[`${apiVersion}/${kind}`];
  if (name) omitEmptyIn(name, obj);
}

function omitEmptyIn(name: string, obj: Record<string, unknown>): void {
  const fields = MESSAGES[name];
  if (!fields) return;
  for (const [, json, type, flags] of fields) {
    if (flags & 8) {
      omitEmptyIn(type, obj);
      continue;
    }
    if (!(json in obj)) continue;
    const v = obj[json];
    const isMap = (flags & 2) !== 0;
    const struct = !(flags & 3) && type.startsWith('k8s.io.');
    if (flags & 4 && !struct && (isZero(v) || (isMap && isPlainRecord(v) && Object.keys(v).length === 0))) {
      delete obj[json];
      continue;
    }
    if (isMap) {
      const valueType = type.slice(type.indexOf(',') + 1);
      if (MESSAGES[valueType] && isPlainRecord(v)) {
        for (const x of Object.values(v)) if (isPlainRecord(x)) omitEmptyIn(valueType, x);
      }
    } else if (MESSAGES[type]) {
      if (Array.isArray(v)) {
        for (const x of v) if (isPlainRecord(x)) omitEmptyIn(type, x);
      } else if (isPlainRecord(v)) omitEmptyIn(type, v);
    }
  }
}

function isPlainRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
