// release.ts: Helm 3 release records in the exact storage format Helm v3.17 writes, so that the real `helm list`,
// `helm history`, `helm get` and `helm rollback|uninstall` see and manage releases Ripple writes, and Ripple can take
// over releases `helm` wrote. Pure: the caller passes the clock (unix seconds) and does the Kubernetes calls.
//
// The record (Go: pkg/release/release.go, info.go, hook.go, status.go; pkg/chart/chart.go, metadata.go,
// dependency.go, file.go — all at v3.17.4) is JSON-marshalled by Go's encoding/json, gzipped and base64-encoded
// (pkg/storage/driver/util.go encodeRelease, lines 37-53), and stored as the `release` key of a Secret named
// `sh.helm.release.v1.NAME.vREVISION` of type `helm.sh/release.v1` (pkg/storage/driver/secrets.go newSecretsObject,
// lines 216-256; pkg/storage/storage.go makeKey, line 251). A Secret's data is base64 in the Kubernetes API, so the
// release text travels base64(base64(gzip(json))).
import { gunzipSync, gzipSync, constants as zlibConstants } from 'node:zlib';
import { jsonString } from '../funcs/index.js';
import type { HookEvent } from './manifests.js';

/** ReleaseStatus is Helm's release.Status. Go: pkg/release/status.go lines 23-42 */
export type ReleaseStatus =
  | 'unknown'
  | 'deployed'
  | 'uninstalled'
  | 'superseded'
  | 'failed'
  | 'uninstalling'
  | 'pending-install'
  | 'pending-upgrade'
  | 'pending-rollback';

/** RELEASE_STATUSES lists every ReleaseStatus in Helm's declaration order. */
export const RELEASE_STATUSES: readonly ReleaseStatus[] = [
  'unknown',
  'deployed',
  'uninstalled',
  'superseded',
  'failed',
  'uninstalling',
  'pending-install',
  'pending-upgrade',
  'pending-rollback',
];

/** isPendingStatus is Status.IsPending: an operation is under way (or crashed) on the release. Go: status.go line 47 */
export function isPendingStatus(s: ReleaseStatus): boolean {
  return s === 'pending-install' || s === 'pending-upgrade' || s === 'pending-rollback';
}

/**
 * HelmTime is a timestamp as Helm's pkg/time.Time marshals it: Go's RFC 3339 with nanoseconds (trailing zeros
 * trimmed), or "" for the zero time. Kept as text so a record Helm wrote re-encodes byte for byte.
 */
export type HelmTime = string;

/** HookEvent is release.HookEvent (Go: hook.go lines 27-37): the same values the chart's annotations use. */
export type { HookEvent } from './manifests.js';

/** HookDeletePolicy is release.HookDeletePolicy. Go: hook.go lines 45-49 */
export type HookDeletePolicy = 'hook-succeeded' | 'hook-failed' | 'before-hook-creation';

/** HookPhase is release.HookPhase; "" when the hook never ran. Go: hook.go lines 94-103 */
export type HookPhase = '' | 'Unknown' | 'Running' | 'Succeeded' | 'Failed';

/** HookExecution is release.HookExecution. */
export interface HookExecution {
  startedAt: HelmTime;
  completedAt: HelmTime;
  phase: HookPhase;
}

/** Hook is release.Hook: one hook manifest of the release. */
export interface Hook {
  name: string;
  kind: string;
  /** path is the chart-relative template path, e.g. "mychart/templates/job.yaml". */
  path: string;
  manifest: string;
  events: HookEvent[];
  lastRun: HookExecution;
  weight: number;
  deletePolicies: HookDeletePolicy[];
}

/** ReleaseInfo is release.Info. */
export interface ReleaseInfo {
  firstDeployed: HelmTime;
  lastDeployed: HelmTime;
  deleted: HelmTime;
  description: string;
  status: ReleaseStatus;
  notes: string;
}

/** Maintainer is chart.Maintainer. */
export interface Maintainer {
  name?: string;
  email?: string;
  url?: string;
}

/** ChartDependency is chart.Dependency as Chart.yaml and Chart.lock list it. */
export interface ChartDependency {
  name: string;
  version?: string;
  repository: string;
  condition?: string;
  tags?: string[];
  enabled?: boolean;
  importValues?: unknown[];
  alias?: string;
}

/** ChartMetadata is chart.Metadata, the contents of Chart.yaml. Optional fields are omitted when empty, as in Go. */
export interface ChartMetadata {
  name?: string;
  home?: string;
  sources?: string[];
  version?: string;
  description?: string;
  keywords?: string[];
  maintainers?: Maintainer[];
  icon?: string;
  apiVersion?: string;
  condition?: string;
  tags?: string;
  appVersion?: string;
  deprecated?: boolean;
  annotations?: Record<string, string>;
  kubeVersion?: string;
  dependencies?: ChartDependency[];
  type?: string;
}

/** ChartLock is chart.Lock, the contents of Chart.lock. `generated` is Go's time.Time text (RFC 3339). */
export interface ChartLock {
  generated: string;
  digest: string;
  dependencies: ChartDependency[] | null;
}

/** ChartFile is chart.File: a path inside the chart and its bytes. */
export interface ChartFile {
  name: string;
  data: Uint8Array;
}

/**
 * ReleaseChart is chart.Chart as a release stores it: only the top-level chart (Go keeps subcharts in an unexported
 * field, so a release never records them), with null where Go has a nil slice, map or pointer.
 */
export interface ReleaseChart {
  metadata: ChartMetadata | null;
  lock: ChartLock | null;
  templates: ChartFile[] | null;
  values: Record<string, unknown> | null;
  schema: Uint8Array | null;
  files: ChartFile[] | null;
}

/** Release is release.Release. `labels` are stored as Secret labels, never in the JSON (Go: `json:"-"`). */
export interface Release {
  name: string;
  info: ReleaseInfo | null;
  chart: ReleaseChart | null;
  /** config is the user-supplied values (not the chart defaults). */
  config: Record<string, unknown>;
  manifest: string;
  hooks: Hook[];
  version: number;
  namespace: string;
  labels: Record<string, string>;
}

/** ReleaseFormatError reports a release record that cannot be encoded or decoded, with the cause. */
export class ReleaseFormatError extends Error {
  override readonly name = 'ReleaseFormatError';
}

// ---------------------------------------------------------------------------------------------------------------
// Go encoding/json, as far as a release needs it: struct fields in declaration order with omitempty, maps with
// sorted keys, HTML-safe string escaping, float64 numbers.

/** goJSONString is Go's encoding/json string encoding with HTML escaping (funcs' jsonString, shared with the
 * template functions). */
export function goJSONString(s: string): string {
  return jsonString(s, true);
}

/** goJSONNumber formats a float64 as Go's encoding/json does (shortest round-trip; exponent form outside [1e-6, 1e21)). */
function goJSONNumber(n: number): string {
  if (!Number.isFinite(n)) throw new ReleaseFormatError(`json: unsupported value: ${n}`);
  if (Object.is(n, -0)) return '-0';
  // JavaScript's Number#toString is the same shortest representation and switches to exponent form at the same
  // bounds as Go's encoding/json ('e' below 1e-6 and from 1e21, with the exponent's leading zeros dropped).
  return String(n);
}

/** goJSONValue marshals an interface{} value as Go does after sigs.k8s.io/yaml or encoding/json decoded it. */
export function goJSONValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return goJSONString(v);
    case 'number':
      return goJSONNumber(v);
    case 'bigint':
      // Helm decodes values into float64; a big integer is stored as that float64.
      return goJSONNumber(Number(v));
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (Array.isArray(v)) return `[${v.map(goJSONValue).join(',')}]`;
      if (v instanceof Uint8Array) return goJSONString(Buffer.from(v).toString('base64'));
      if (v instanceof Map) return goJSONMap(Object.fromEntries(v));
      return goJSONMap(v as Record<string, unknown>);
    }
  }
  throw new ReleaseFormatError(`json: unsupported type: ${typeof v}`);
}

// Go sorts map keys by their UTF-8 bytes; for strings that is the order of code points, not of UTF-16 units.
function compareUTF8(a: string, b: string): number {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return Buffer.compare(x, y);
}

function goJSONMap(m: Record<string, unknown>): string {
  const keys = Object.keys(m).sort(compareUTF8);
  return `{${keys.map((k) => `${goJSONString(k)}:${goJSONValue(m[k])}`).join(',')}}`;
}

/** Field is one struct field for goStruct: its JSON name, the value and whether `omitempty` applies. */
type Field = [name: string, value: string | undefined];

// goStruct writes a struct's fields in order, skipping those whose encoder returned undefined (omitempty + empty).
function goStruct(fields: Field[]): string {
  return `{${fields.filter((f) => f[1] !== undefined).map(([k, v]) => `${goJSONString(k)}:${v}`).join(',')}}`;
}

const omitString = (s: string | undefined) => (s ? goJSONString(s) : undefined);
const omitNumber = (n: number | undefined) => (n ? goJSONNumber(n) : undefined);
const omitBool = (b: boolean | undefined) => (b ? 'true' : undefined);
const omitStrings = (a: readonly string[] | undefined) => (a && a.length > 0 ? `[${a.map(goJSONString).join(',')}]` : undefined);
const omitMap = (m: Record<string, unknown> | undefined | null) => (m && Object.keys(m).length > 0 ? goJSONMap(m) : undefined);

function marshalMaintainer(m: Maintainer): string {
  return goStruct([
    ['name', omitString(m.name)],
    ['email', omitString(m.email)],
    ['url', omitString(m.url)],
  ]);
}

// Go: pkg/chart/dependency.go lines 24-50 (name and repository have no omitempty).
function marshalDependency(d: ChartDependency): string {
  return goStruct([
    ['name', goJSONString(d.name ?? '')],
    ['version', omitString(d.version)],
    ['repository', goJSONString(d.repository ?? '')],
    ['condition', omitString(d.condition)],
    ['tags', omitStrings(d.tags)],
    ['enabled', omitBool(d.enabled)],
    ['import-values', d.importValues && d.importValues.length > 0 ? goJSONValue(d.importValues) : undefined],
    ['alias', omitString(d.alias)],
  ]);
}

/** marshalChartMetadata is json.Marshal(*chart.Metadata). Go: pkg/chart/metadata.go lines 48-84 */
export function marshalChartMetadata(m: ChartMetadata): string {
  return goStruct([
    ['name', omitString(m.name)],
    ['home', omitString(m.home)],
    ['sources', omitStrings(m.sources)],
    ['version', omitString(m.version)],
    ['description', omitString(m.description)],
    ['keywords', omitStrings(m.keywords)],
    ['maintainers', m.maintainers && m.maintainers.length > 0 ? `[${m.maintainers.map(marshalMaintainer).join(',')}]` : undefined],
    ['icon', omitString(m.icon)],
    ['apiVersion', omitString(m.apiVersion)],
    ['condition', omitString(m.condition)],
    ['tags', omitString(m.tags)],
    ['appVersion', omitString(m.appVersion)],
    ['deprecated', omitBool(m.deprecated)],
    ['annotations', omitMap(m.annotations)],
    ['kubeVersion', omitString(m.kubeVersion)],
    ['dependencies', m.dependencies && m.dependencies.length > 0 ? `[${m.dependencies.map(marshalDependency).join(',')}]` : undefined],
    ['type', omitString(m.type)],
  ]);
}

const bytesOrNull = (b: Uint8Array | null) => (b === null ? 'null' : goJSONString(Buffer.from(b).toString('base64')));

function marshalFiles(files: ChartFile[] | null): string {
  if (files === null) return 'null';
  return `[${files.map((f) => goStruct([['name', goJSONString(f.name)], ['data', bytesOrNull(f.data)]])).join(',')}]`;
}

// Go: pkg/chart/chart.go lines 35-56 — no omitempty: nil slices, maps and pointers are written as null.
function marshalChart(c: ReleaseChart): string {
  return goStruct([
    ['metadata', c.metadata === null ? 'null' : marshalChartMetadata(c.metadata)],
    [
      'lock',
      c.lock === null
        ? 'null'
        : goStruct([
            ['generated', goJSONString(c.lock.generated || '0001-01-01T00:00:00Z')],
            ['digest', goJSONString(c.lock.digest)],
            ['dependencies', c.lock.dependencies === null ? 'null' : `[${c.lock.dependencies.map(marshalDependency).join(',')}]`],
          ]),
    ],
    ['templates', marshalFiles(c.templates)],
    ['values', c.values === null ? 'null' : goJSONMap(c.values)],
    ['schema', bytesOrNull(c.schema)],
    ['files', marshalFiles(c.files)],
  ]);
}

// Go: pkg/release/info.go lines 25-40 — the three times are structs, so omitempty never drops them; a zero time is "".
function marshalInfo(i: ReleaseInfo): string {
  return goStruct([
    ['first_deployed', goJSONString(i.firstDeployed)],
    ['last_deployed', goJSONString(i.lastDeployed)],
    ['deleted', goJSONString(i.deleted)],
    ['description', omitString(i.description)],
    ['status', omitString(i.status)],
    ['notes', omitString(i.notes)],
  ]);
}

// Go: pkg/release/hook.go lines 63-89.
function marshalHook(h: Hook): string {
  return goStruct([
    ['name', omitString(h.name)],
    ['kind', omitString(h.kind)],
    ['path', omitString(h.path)],
    ['manifest', omitString(h.manifest)],
    ['events', omitStrings(h.events)],
    [
      'last_run',
      goStruct([
        ['started_at', goJSONString(h.lastRun.startedAt)],
        ['completed_at', goJSONString(h.lastRun.completedAt)],
        ['phase', goJSONString(h.lastRun.phase)],
      ]),
    ],
    ['weight', omitNumber(h.weight)],
    ['delete_policies', omitStrings(h.deletePolicies)],
  ]);
}

/** marshalRelease is json.Marshal(*release.Release): the JSON text Helm v3.17 stores, field for field. Go: release.go lines 22-43 */
export function marshalRelease(r: Release): string {
  return goStruct([
    ['name', omitString(r.name)],
    ['info', r.info === null ? undefined : marshalInfo(r.info)],
    ['chart', r.chart === null ? undefined : marshalChart(r.chart)],
    ['config', omitMap(r.config)],
    ['manifest', omitString(r.manifest)],
    ['hooks', r.hooks.length > 0 ? `[${r.hooks.map(marshalHook).join(',')}]` : undefined],
    ['version', omitNumber(r.version)],
    ['namespace', omitString(r.namespace)],
  ]);
}

// ---------------------------------------------------------------------------------------------------------------
// Decoding: tolerant like Go's json.Unmarshal (missing fields are zero values), strict about types that would make
// Go fail.

type JSONObject = Record<string, unknown>;

function isObject(v: unknown): v is JSONObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(o: JSONObject, k: string, where: string): string {
  const v = o[k];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new ReleaseFormatError(`json: cannot unmarshal ${typeof v} into Go struct field ${where}.${k} of type string`);
  return v;
}

function num(o: JSONObject, k: string, where: string): number {
  const v = o[k];
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new ReleaseFormatError(`json: cannot unmarshal ${JSON.stringify(v)} into Go struct field ${where}.${k} of type int`);
  return v;
}

function strs(o: JSONObject, k: string, where: string): string[] {
  const v = o[k];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new ReleaseFormatError(`json: cannot unmarshal ${where}.${k}: want an array of strings`);
  return v as string[];
}

function obj(o: JSONObject, k: string, where: string): JSONObject | null {
  const v = o[k];
  if (v === undefined || v === null) return null;
  if (!isObject(v)) throw new ReleaseFormatError(`json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go struct field ${where}.${k} of type object`);
  return v;
}

function bytes(o: JSONObject, k: string, where: string): Uint8Array | null {
  const v = o[k];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ReleaseFormatError(`json: cannot unmarshal ${typeof v} into Go struct field ${where}.${k} of type []uint8`);
  return new Uint8Array(Buffer.from(v, 'base64'));
}

function files(o: JSONObject, k: string, where: string): ChartFile[] | null {
  const v = o[k];
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) throw new ReleaseFormatError(`json: cannot unmarshal ${where}.${k}: want an array of files`);
  return v.filter(isObject).map((f) => ({ name: str(f, 'name', 'File'), data: bytes(f, 'data', 'File') ?? new Uint8Array() }));
}

function unmarshalDependency(d: JSONObject): ChartDependency {
  const out: ChartDependency = { name: str(d, 'name', 'Dependency'), repository: str(d, 'repository', 'Dependency') };
  if (d.version) out.version = str(d, 'version', 'Dependency');
  if (d.condition) out.condition = str(d, 'condition', 'Dependency');
  if (d.tags) out.tags = strs(d, 'tags', 'Dependency');
  if (d.enabled === true) out.enabled = true;
  if (Array.isArray(d['import-values'])) out.importValues = d['import-values'];
  if (d.alias) out.alias = str(d, 'alias', 'Dependency');
  return out;
}

/** unmarshalChartMetadata reads a chart.Metadata JSON object (a release's chart.metadata, an OCI chart config). */
export function unmarshalChartMetadata(m: JSONObject): ChartMetadata {
  const out: ChartMetadata = {};
  for (const k of ['name', 'home', 'version', 'description', 'icon', 'apiVersion', 'condition', 'tags', 'appVersion', 'kubeVersion', 'type'] as const) {
    const v = str(m, k, 'Metadata');
    if (v !== '') out[k] = v;
  }
  for (const k of ['sources', 'keywords'] as const) {
    const v = strs(m, k, 'Metadata');
    if (v.length > 0) out[k] = v;
  }
  if (Array.isArray(m.maintainers)) {
    out.maintainers = m.maintainers.filter(isObject).map((x) => {
      const mt: Maintainer = {};
      for (const k of ['name', 'email', 'url'] as const) if (x[k]) mt[k] = str(x, k, 'Maintainer');
      return mt;
    });
  }
  if (m.deprecated === true) out.deprecated = true;
  const ann = obj(m, 'annotations', 'Metadata');
  if (ann) out.annotations = Object.fromEntries(Object.entries(ann).map(([k, v]) => [k, String(v)]));
  if (Array.isArray(m.dependencies)) out.dependencies = m.dependencies.filter(isObject).map(unmarshalDependency);
  return out;
}

function unmarshalChart(c: JSONObject): ReleaseChart {
  const meta = obj(c, 'metadata', 'Chart');
  const lock = obj(c, 'lock', 'Chart');
  return {
    metadata: meta === null ? null : unmarshalChartMetadata(meta),
    lock:
      lock === null
        ? null
        : {
            generated: str(lock, 'generated', 'Lock'),
            digest: str(lock, 'digest', 'Lock'),
            dependencies: Array.isArray(lock.dependencies) ? lock.dependencies.filter(isObject).map(unmarshalDependency) : null,
          },
    templates: files(c, 'templates', 'Chart'),
    values: obj(c, 'values', 'Chart'),
    schema: bytes(c, 'schema', 'Chart'),
    files: files(c, 'files', 'Chart'),
  };
}

function unmarshalStatus(s: string): ReleaseStatus {
  // Go keeps any string in a Status; an unknown one cannot be acted on, so it reads as "unknown".
  return (RELEASE_STATUSES as readonly string[]).includes(s) ? (s as ReleaseStatus) : 'unknown';
}

function unmarshalHook(h: JSONObject): Hook {
  const lr = obj(h, 'last_run', 'Hook') ?? {};
  return {
    name: str(h, 'name', 'Hook'),
    kind: str(h, 'kind', 'Hook'),
    path: str(h, 'path', 'Hook'),
    manifest: str(h, 'manifest', 'Hook'),
    events: strs(h, 'events', 'Hook') as HookEvent[],
    lastRun: {
      startedAt: str(lr, 'started_at', 'HookExecution'),
      completedAt: str(lr, 'completed_at', 'HookExecution'),
      phase: str(lr, 'phase', 'HookExecution') as HookPhase,
    },
    weight: num(h, 'weight', 'Hook'),
    deletePolicies: strs(h, 'delete_policies', 'Hook') as HookDeletePolicy[],
  };
}

/** unmarshalRelease is json.Unmarshal into release.Release (labels come from the Secret, not the JSON). */
export function unmarshalRelease(text: string): Release {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new ReleaseFormatError(`release JSON is invalid: ${(e as Error).message}`, { cause: e });
  }
  if (!isObject(v)) throw new ReleaseFormatError('release JSON is not an object');
  const info = obj(v, 'info', 'Release');
  const chart = obj(v, 'chart', 'Release');
  return {
    name: str(v, 'name', 'Release'),
    info:
      info === null
        ? null
        : {
            firstDeployed: str(info, 'first_deployed', 'Info'),
            lastDeployed: str(info, 'last_deployed', 'Info'),
            deleted: str(info, 'deleted', 'Info'),
            description: str(info, 'description', 'Info'),
            status: unmarshalStatus(str(info, 'status', 'Info')),
            notes: str(info, 'notes', 'Info'),
          },
    chart: chart === null ? null : unmarshalChart(chart),
    config: obj(v, 'config', 'Release') ?? {},
    manifest: str(v, 'manifest', 'Release'),
    hooks: Array.isArray(v.hooks) ? v.hooks.filter(isObject).map(unmarshalHook) : [],
    version: num(v, 'version', 'Release'),
    namespace: str(v, 'namespace', 'Release'),
    labels: {},
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Storage encoding.

/** MAX_RELEASE_JSON_BYTES bounds a decompressed release record. */
const MAX_RELEASE_JSON_BYTES = 256 * 1024 * 1024;

/** GZIP_MAGIC is the header Helm checks before decompressing (Go: util.go line 31). */
const GZIP_MAGIC = [0x1f, 0x8b, 0x08];

/** encodeRelease is Helm's encodeRelease: base64(gzip(json)) at best compression. Go: util.go lines 37-53 */
export function encodeRelease(r: Release): string {
  const gz = gzipSync(Buffer.from(marshalRelease(r), 'utf8'), { level: zlibConstants.Z_BEST_COMPRESSION });
  return gz.toString('base64');
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * decodeRelease is Helm's decodeRelease: base64, then gunzip only when the gzip magic header is there (records
 * written before Helm compressed them are plain JSON), then JSON. Go: util.go lines 58-87
 */
export function decodeRelease(data: string): Release {
  if (data.length % 4 !== 0 || !BASE64.test(data)) throw new ReleaseFormatError('release data is not standard base64');
  let b = Buffer.from(data, 'base64');
  if (b.length > 3 && GZIP_MAGIC.every((m, i) => b[i] === m)) {
    try {
      // A release Secret holds at most 1 MiB; the cap keeps a hostile one from inflating without bound.
      b = gunzipSync(b, { maxOutputLength: MAX_RELEASE_JSON_BYTES });
    } catch (e) {
      throw new ReleaseFormatError(`release data is corrupt gzip: ${(e as Error).message}`, { cause: e });
    }
  }
  return unmarshalRelease(b.toString('utf8'));
}

/** HELM_STORAGE_TYPE prefixes every release Secret's name. Go: storage.go line 35 */
export const HELM_STORAGE_TYPE = 'sh.helm.release.v1';
/** RELEASE_SECRET_TYPE is the `type` of a release Secret. Go: secrets.go line 254 */
export const RELEASE_SECRET_TYPE = 'helm.sh/release.v1';
/** SYSTEM_LABELS are the labels Helm owns on a release Secret. Go: util.go line 33 */
export const SYSTEM_LABELS: readonly string[] = ['name', 'owner', 'status', 'version', 'createdAt', 'modifiedAt'];

/** releaseSecretName is makeKey: `sh.helm.release.v1.NAME.vREVISION`. Go: storage.go line 251 */
export function releaseSecretName(name: string, revision: number): string {
  return `${HELM_STORAGE_TYPE}.${name}.v${revision}`;
}

/** releaseSelector is the label selector `helm history NAME` lists a release's Secrets with. Go: storage.go line 156 */
export function releaseSelector(name?: string): string {
  return name === undefined ? 'owner=helm' : `name=${name},owner=helm`;
}

/** ReleaseSecret is the Secret object a release is stored in, ready for the Kubernetes API (data is base64). */
export interface ReleaseSecret {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  type: typeof RELEASE_SECRET_TYPE;
  data: { release: string };
}

/** SecretWrite says which driver call writes the Secret: Create stamps `createdAt`, Update `modifiedAt`. */
export interface SecretWrite {
  op: 'create' | 'update';
  /** nowUnix is the clock in unix seconds (Helm: time.Now().Unix()). */
  nowUnix: number;
}

/**
 * releaseSecret is newSecretsObject after Create or Update: the release's own labels, then createdAt (Create) or
 * modifiedAt (Update), then name/owner/status/version, which always win. Go: secrets.go lines 144-191, 216-256
 */
export function releaseSecret(r: Release, write: SecretWrite): ReleaseSecret {
  const labels: Record<string, string> = {};
  labels[write.op === 'create' ? 'createdAt' : 'modifiedAt'] = String(Math.floor(write.nowUnix));
  Object.assign(labels, r.labels);
  labels.name = r.name;
  labels.owner = 'helm';
  labels.status = r.info?.status ?? '';
  labels.version = String(r.version);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: releaseSecretName(r.name, r.version), namespace: r.namespace, labels },
    type: RELEASE_SECRET_TYPE,
    data: { release: Buffer.from(encodeRelease(r), 'utf8').toString('base64') },
  };
}

/** SecretLike is the part of a Secret read from the API that releaseFromSecret needs. */
export interface SecretLike {
  metadata?: { name?: string; labels?: Record<string, string> };
  type?: string;
  data?: Record<string, string>;
}

/**
 * releaseFromSecret is the Secrets driver's Get: decodes `data.release` (base64 in the API, around Helm's own
 * base64) and attaches the Secret's labels without Helm's system labels. Go: secrets.go lines 65-78
 */
export function releaseFromSecret(s: SecretLike): Release {
  const name = s.metadata?.name ?? '';
  const raw = s.data?.release;
  if (raw === undefined) throw new ReleaseFormatError(`Secret ${name} has no data.release`);
  let r: Release;
  try {
    r = decodeRelease(Buffer.from(raw, 'base64').toString('utf8'));
  } catch (e) {
    if (e instanceof ReleaseFormatError) throw new ReleaseFormatError(`get: failed to decode data "${name}": ${e.message}`, { cause: e });
    throw e;
  }
  r.labels = filterSystemLabels(s.metadata?.labels ?? {});
  return r;
}

/** filterSystemLabels drops the labels Helm owns. Go: util.go lines 100-108 */
export function filterSystemLabels(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).filter(([k]) => !SYSTEM_LABELS.includes(k)));
}

// ---------------------------------------------------------------------------------------------------------------
// History: pure decisions over a release's records, as pkg/storage/storage.go makes them.

/** sortByRevision returns the history oldest first. Go: releaseutil.SortByRevision */
export function sortByRevision(history: readonly Release[]): Release[] {
  return [...history].sort((a, b) => a.version - b.version);
}

/** lastRelease is Storage.Last: the highest revision, whatever its status. Go: storage.go lines 231-243 */
export function lastRelease(history: readonly Release[]): Release | undefined {
  return sortByRevision(history).at(-1);
}

/**
 * deployedRelease is Storage.Deployed: the highest revision whose status is deployed (after concurrent writers,
 * Helm's records can hold several). Go: storage.go lines 115-130
 */
export function deployedRelease(history: readonly Release[]): Release | undefined {
  return sortByRevision(history.filter((r) => r.info?.status === 'deployed')).at(-1);
}

/** nextRevision is the revision an upgrade (or a replacing install) writes: last + 1, or 1 for a new release. */
export function nextRevision(history: readonly Release[]): number {
  return (lastRelease(history)?.version ?? 0) + 1;
}

/**
 * pendingOperation returns the last record when an install, upgrade or rollback is under way on it (or crashed
 * mid-way): Helm then refuses to upgrade with "another operation (install/upgrade/rollback) is in progress".
 */
export function pendingOperation(history: readonly Release[]): Release | undefined {
  const last = lastRelease(history);
  return last?.info && isPendingStatus(last.info.status) ? last : undefined;
}

/**
 * planHistoryPruning is Storage.Create's removeLeastRecent(name, maxHistory-1): the revisions to delete, oldest
 * first, so that the record about to be created keeps the history at maxHistory; the last deployed revision is
 * never pruned. maxHistory ≤ 0 means no limit. Go: storage.go lines 60-70, 164-218
 */
export function planHistoryPruning(history: readonly Release[], maxHistory: number): number[] {
  if (maxHistory <= 0) return [];
  const max = maxHistory - 1;
  if (history.length <= max) return [];
  const sorted = sortByRevision(history);
  const lastDeployed = deployedRelease(history);
  const toDelete: number[] = [];
  for (const r of sorted) {
    if (sorted.length - toDelete.length === max) break;
    if (lastDeployed === undefined || r.version !== lastDeployed.version) toDelete.push(r.version);
  }
  return toDelete;
}

const VALID_RELEASE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** validateReleaseName is chartutil.ValidateReleaseName: a DNS-1123 subdomain of at most 53 characters, or an error message. */
export function validateReleaseName(name: string): string | undefined {
  if (name === '') return 'no name provided';
  if (name.length > 53 || !VALID_RELEASE_NAME.test(name)) return `invalid release name "${name}": names must be 53 characters or less and a DNS-1123 subdomain`;
  return undefined;
}

/**
 * formatHelmTime is Go's time.Time JSON text for an instant in UTC, as Helm writes it on a host whose local zone
 * is UTC: RFC 3339 with the fraction's trailing zeros dropped. `nanos` refines the milliseconds of a Date.
 */
export function formatHelmTime(d: Date, nanos?: number): HelmTime {
  const iso = d.toISOString(); // 2006-01-02T15:04:05.000Z
  const base = iso.slice(0, 19);
  const frac = (nanos !== undefined ? String(nanos).padStart(9, '0') : iso.slice(20, 23)).replace(/0+$/, '');
  return `${base}${frac ? `.${frac}` : ''}Z`;
}

/** newRelease builds an empty record with Go's zero values, for callers that fill in the rest. */
export function newRelease(name: string, namespace: string, version: number): Release {
  return {
    name,
    info: { firstDeployed: '', lastDeployed: '', deleted: '', description: '', status: 'unknown', notes: '' },
    chart: null,
    config: {},
    manifest: '',
    hooks: [],
    version,
    namespace,
    labels: {},
  };
}
