// Admission webhooks: MutatingWebhookConfigurations and ValidatingWebhookConfigurations registered in a cluster are
// called as kube-apiserver calls them — AdmissionReview v1 (or v1beta1) over HTTPS to clientConfig.url or to the
// Service named in clientConfig.service, with rules, matchPolicy, namespaceSelector, objectSelector, matchConditions
// (CEL), timeoutSeconds, sideEffects (dry run), failurePolicy and reinvocationPolicy; mutations are JSON patches.
// Go: k8s.io/apiserver/pkg/admission/plugin/webhook (generic, mutating, validating, errors, request)
//
// The registry's write path is synchronous (nothing can race between reading an object and queuing its write) while a
// webhook call is not. So a write with webhooks runs as kube's GuaranteedUpdate does: the synchronous write runs with
// an AdmissionGate; when it reaches mutating or validating admission for an object the gate has no verdict for, the
// gate aborts the attempt (nothing was written) with the request to send; the caller awaits the webhooks, records the
// verdict and runs the write again. A recorded verdict counts only for the same object: if another write changed it
// meanwhile, the webhooks are called again for what will really be stored.
//
// Services: the embedded server runs no Pods, so a Service-backed webhook is called at the addresses its
// EndpointSlices/Endpoints name (an ExternalName Service at its external name): point one at a backend running on this
// machine (127.0.0.1) to try a webhook on `ripple up`. An address that belongs to a Pod only simulated here refuses
// the connection, as a crashed backend would, and failurePolicy decides.
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { UserInfo } from './auth/rules.js';
import type { Cluster } from './cluster.js';
import { evaluateCel, ruleMatches, selects, toCel } from './admission.js';
import { asArray, asRecord } from './printers.js';
import type { ResourceDescriptor } from './resource.js';
import { applyJsonPatch } from './schema/index.js';
import { badRequest, StatusError } from './status.js';
import { clone, deepEqual, isPlainObject, type KubeObject } from './types.js';

const MUTATING = 'admissionregistration.k8s.io/mutatingwebhookconfigurations';
const VALIDATING = 'admissionregistration.k8s.io/validatingwebhookconfigurations';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';


/** AdmissionAttributes describe one write as webhooks see it. Objects are in the request's version. */
export interface AdmissionAttributes {
  operation: AdmissionOperation;
  desc: ResourceDescriptor;
  version: string;
  subresource?: string;
  namespace: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  /** The request's options object (CreateOptions, UpdateOptions, PatchOptions, DeleteOptions). */
  options: Record<string, unknown>;
  warnings: string[];
}

/** AdmissionGate is what the synchronous write path consults at mutating and validating admission. */
export interface AdmissionGate {
  /** mutate returns the object after mutating webhooks (the same object when none changed it). */
  mutate(a: AdmissionAttributes): KubeObject;
  /** validate returns when validating webhooks admit the write; throws their denial. */
  validate(a: AdmissionAttributes): void;
}

/** hasWebhooks says whether any webhook configuration exists in the cluster (the cheap check before gating). */
export function hasWebhooks(cluster: Cluster): boolean {
  return (cluster.tables.get(MUTATING)?.objects.size ?? 0) > 0 || (cluster.tables.get(VALIDATING)?.objects.size ?? 0) > 0;
}

// Kube never calls webhooks for its admission configuration objects (it could lock itself out).
function exempt(desc: ResourceDescriptor): boolean {
  return desc.group === 'admissionregistration.k8s.io';
}

/** Raised inside the synchronous write when a webhook verdict is needed; nothing has been written. */
class VerdictNeeded extends Error {
  constructor(
    readonly phase: 'mutating' | 'validating',
    readonly attrs: AdmissionAttributes,
    readonly key: string,
  ) {
    super(`admission webhooks must be called (${phase})`);
  }
}

// What is compared between attempts: what webhooks saw, without what every attempt sets anew.
function comparable(obj: KubeObject | undefined, generated: boolean): unknown {
  if (!obj) return undefined;
  const meta = { ...(obj.metadata ?? {}) } as Record<string, unknown>;
  delete meta.uid;
  delete meta.creationTimestamp;
  if (generated) delete meta.name;
  if (Array.isArray(meta.managedFields)) meta.managedFields = meta.managedFields.map((e) => ({ ...(e as object), time: undefined }));
  return { ...obj, metadata: meta };
}

function keyOf(a: AdmissionAttributes): string {
  // A generated name is drawn anew by every attempt: such creates are known by their generateName.
  const generated = a.operation === 'CREATE' && !!a.object?.metadata?.generateName;
  return `${a.operation}/${a.subresource ?? ''}/${a.namespace}/${generated ? `generate:${a.object?.metadata?.generateName}` : a.name}`;
}

interface MutationRecord {
  input: unknown;
  output: KubeObject;
}

/** WebhookGate records webhook verdicts across attempts of one request. */
class WebhookGate implements AdmissionGate {
  readonly mutations = new Map<string, MutationRecord>();
  readonly validations = new Map<string, unknown>();

  mutate(a: AdmissionAttributes): KubeObject {
    if (exempt(a.desc) || !a.object) return a.object!;
    const key = keyOf(a);
    const rec = this.mutations.get(key);
    const input = comparable(a.object, key.includes('/generate:'));
    if (rec && deepEqual(rec.input, input)) return clone(rec.output);
    throw new VerdictNeeded('mutating', a, key);
  }

  validate(a: AdmissionAttributes): void {
    if (exempt(a.desc)) return;
    const key = keyOf(a);
    const seen = { o: comparable(a.object, key.includes('/generate:')), old: comparable(a.oldObject, false) };
    if (this.validations.has(key) && deepEqual(this.validations.get(key), seen)) return;
    throw new VerdictNeeded('validating', a, key);
  }
}

const MAX_ROUNDS = 10;

/** runWithWebhooks runs a synchronous write under webhook admission; write must be repeatable (own its input). */
export async function runWithWebhooks<T>(cluster: Cluster, user: UserInfo, write: (gate: AdmissionGate | undefined) => T): Promise<T> {
  if (!hasWebhooks(cluster)) return write(undefined);
  const gate = new WebhookGate();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    try {
      return write(gate);
    } catch (e) {
      if (!(e instanceof VerdictNeeded)) throw e;
      const a = e.attrs;
      if (e.phase === 'mutating') {
        const output = await dispatchMutating(cluster, user, a);
        gate.mutations.set(e.key, { input: comparable(a.object, e.key.includes('/generate:')), output });
      } else {
        await dispatchValidating(cluster, user, a);
        gate.validations.set(e.key, { o: comparable(a.object, e.key.includes('/generate:')), old: comparable(a.oldObject, false) });
      }
    }
  }
  throw new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the object kept changing while admission webhooks were being called; please apply your changes to the latest version and try again',
    reason: 'Conflict',
    code: 409,
  } as never);
}

// ----------------------------------------------------------------------------- matching

interface Hook {
  configuration: string;
  spec: Record<string, unknown>;
  name: string;
}

function hooksOf(cluster: Cluster, storage: string): Hook[] {
  const table = cluster.tables.get(storage);
  if (!table) return [];
  // Go: configurations are called in name order, webhooks in the order they are listed.
  const configs = [...table.objects.values()].map((s) => s.obj).sort((x, y) => (x.metadata.name! < y.metadata.name! ? -1 : x.metadata.name! > y.metadata.name! ? 1 : 0));
  return configs.flatMap((c) => asArray(c.webhooks).map(asRecord).map((spec) => ({ configuration: c.metadata.name!, spec, name: String(spec.name ?? '') })));
}

/** The version a webhook is called in: the request's when a rule names it, else (matchPolicy Equivalent) another. */
function matchedVersion(hook: Hook, a: AdmissionAttributes): string | undefined {
  const rules = asArray(hook.spec.rules).map(asRecord);
  const matches = (version: string) => rules.some((r) => ruleMatches(r, { operation: a.operation, desc: a.desc, version, subresource: a.subresource }));
  if (matches(a.version)) return a.version;
  if ((hook.spec.matchPolicy ?? 'Equivalent') !== 'Equivalent') return undefined;
  return a.desc.versions.find((v) => v !== a.version && matches(v));
}

function namespaceLabels(cluster: Cluster, a: AdmissionAttributes): Record<string, string> | undefined {
  if (a.desc.group === '' && a.desc.plural === 'namespaces') return ((a.object ?? a.oldObject)?.metadata?.labels ?? {}) as Record<string, string>;
  if (!a.desc.namespaced) return undefined;
  return (cluster.get('/namespaces', undefined, a.namespace)?.obj.metadata.labels ?? {}) as Record<string, string>;
}

function objectSelected(hook: Hook, a: AdmissionAttributes): boolean {
  const sel = hook.spec.objectSelector;
  if (!isPlainObject(sel) || Object.keys(sel).length === 0) return true;
  const labels = (o: KubeObject | undefined) => (o?.metadata?.labels ?? {}) as Record<string, string>;
  // Go: the object selector matches when the new or the old object matches.
  return (!!a.object && selects(sel, labels(a.object))) || (!!a.oldObject && selects(sel, labels(a.oldObject)));
}

function convert(a: AdmissionAttributes, obj: KubeObject | undefined, to: string): KubeObject | undefined {
  if (!obj || to === a.version) return obj;
  return a.desc.fromStorage(a.desc.toStorage(clone(obj), a.version), to);
}

function reviewRequest(a: AdmissionAttributes, version: string, user: UserInfo): Record<string, unknown> {
  const gvk = { group: a.desc.group, version, kind: a.desc.kind };
  const gvr = { group: a.desc.group, version, resource: a.desc.plural };
  const req: Record<string, unknown> = {
    uid: randomUUID(),
    kind: gvk,
    resource: gvr,
  };
  if (a.subresource) req.subResource = a.subresource;
  req.requestKind = { group: a.desc.group, version: a.version, kind: a.desc.kind };
  req.requestResource = { group: a.desc.group, version: a.version, resource: a.desc.plural };
  if (a.subresource) req.requestSubResource = a.subresource;
  if (a.name) req.name = a.name;
  if (a.namespace) req.namespace = a.namespace;
  req.operation = a.operation;
  const userInfo: Record<string, unknown> = { username: user.username };
  if (user.uid) userInfo.uid = user.uid;
  if (user.groups.length > 0) userInfo.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length > 0) userInfo.extra = user.extra;
  req.userInfo = userInfo;
  req.object = convert(a, a.object, version) ?? null;
  req.oldObject = convert(a, a.oldObject, version) ?? null;
  req.dryRun = a.dryRun;
  req.options = a.options;
  return req;
}

// Go: generic.Webhook matchConditions — all must be true; an error is a call failure governed by failurePolicy.
function conditionsHold(hook: Hook, request: Record<string, unknown>): boolean {
  const conds = asArray(hook.spec.matchConditions).map(asRecord);
  if (conds.length === 0) return true;
  const vars = { object: toCel(request.object), oldObject: toCel(request.oldObject), request: toCel(request), params: null, namespaceObject: null, variables: {} };
  for (const c of conds) {
    let v: unknown;
    try {
      v = evaluateCel(String(c.expression ?? ''), vars);
    } catch (e) {
      throw new CallError(`failed to evaluate match condition ${JSON.stringify(String(c.name ?? ''))}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
    }
    if (v !== true) return false;
  }
  return true;
}

/** A webhook that could not be called (or answered nonsense): failurePolicy decides. */
class CallError extends Error {}

function internalError(hook: Hook, message: string): StatusError {
  const full = `Internal error occurred: failed calling webhook ${JSON.stringify(hook.name)}: ${message}`;
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: full, reason: 'InternalError', details: { causes: [{ message: `failed calling webhook ${JSON.stringify(hook.name)}: ${message}` }] }, code: 500 } as never);
}

// Go: webhookerrors.ToStatusErr
function denied(hook: Hook, result: Record<string, unknown> | undefined): StatusError {
  const by = `admission webhook ${JSON.stringify(hook.name)} denied the request`;
  const r = { ...(result ?? {}) };
  let code = typeof r.code === 'number' ? r.code : 0;
  if (code < 400) code = 400;
  const message = typeof r.message === 'string' && r.message ? `${by}: ${r.message}` : typeof r.reason === 'string' && r.reason ? `${by}: ${r.reason}` : `${by} without explanation`;
  const out: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message };
  if (typeof r.reason === 'string' && r.reason) out.reason = r.reason;
  if (isPlainObject(r.details)) out.details = r.details;
  out.code = code;
  return new StatusError(out as never);
}

interface Relevant {
  hook: Hook;
  version: string;
}

function relevant(cluster: Cluster, storage: string, a: AdmissionAttributes): Relevant[] {
  const out: Relevant[] = [];
  const nsLabels = namespaceLabels(cluster, a);
  for (const hook of hooksOf(cluster, storage)) {
    const version = matchedVersion(hook, a);
    if (!version) continue;
    if (nsLabels && !selects(hook.spec.namespaceSelector, nsLabels)) continue;
    if (!objectSelected(hook, a)) continue;
    out.push({ hook, version });
  }
  return out;
}

function checkDryRun(hook: Hook, a: AdmissionAttributes): void {
  const se = String(hook.spec.sideEffects ?? 'Unknown');
  if (a.dryRun && se !== 'None' && se !== 'NoneOnDryRun') throw badRequest(`admission webhook ${JSON.stringify(hook.name)} does not support dry run`);
}

/** call sends one AdmissionReview and returns its response; failures come back as CallError. */
async function call(cluster: Cluster, hook: Hook, request: Record<string, unknown>): Promise<Record<string, unknown>> {
  const versions = asArray(hook.spec.admissionReviewVersions).map(String);
  const reviewVersion = versions.find((v) => v === 'v1' || v === 'v1beta1');
  if (!reviewVersion) throw new CallError(`webhook does not accept v1 or v1beta1 AdmissionReview`);
  const review = { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${reviewVersion}`, request };
  const timeout = typeof hook.spec.timeoutSeconds === 'number' ? hook.spec.timeoutSeconds : 10;
  const target = resolve(cluster, asRecord(hook.spec.clientConfig), timeout);
  const body = await post(target, JSON.stringify(review), timeout);
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    throw new CallError(`received invalid webhook response: ${body.length > 200 ? `${body.slice(0, 200)}…` : body}`);
  }
  if (!isPlainObject(parsed.response)) throw new CallError('webhook response was absent');
  const response = parsed.response as Record<string, unknown>;
  if (response.uid !== request.uid) throw new CallError(`expected response.uid=${JSON.stringify(request.uid)}, got ${JSON.stringify(response.uid ?? '')}`);
  if (reviewVersion === 'v1' && (parsed.apiVersion !== 'admission.k8s.io/v1' || parsed.kind !== 'AdmissionReview')) {
    throw new CallError(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${String(parsed.apiVersion ?? '')}, Kind=${String(parsed.kind ?? '')}`);
  }
  return response;
}

interface Target {
  url: string;
  /** Host to connect to (an address the URL's name resolves to), when it differs from the URL's host. */
  connect?: { host: string; port: number };
  ca?: string;
  serverName?: string;
  /** A connection that cannot succeed, with kube's wording of why. */
  refused?: string;
}

function resolve(cluster: Cluster, cc: Record<string, unknown>, timeout: number): Target {
  const ca = typeof cc.caBundle === 'string' && cc.caBundle ? Buffer.from(cc.caBundle, 'base64').toString('utf8') : undefined;
  if (typeof cc.url === 'string' && cc.url) {
    const u = new URL(cc.url);
    u.searchParams.set('timeout', `${timeout}s`);
    return { url: u.toString(), ca };
  }
  const svc = asRecord(cc.service);
  const name = String(svc.name ?? '');
  const namespace = String(svc.namespace ?? '');
  const port = typeof svc.port === 'number' ? svc.port : 443;
  const path = typeof svc.path === 'string' ? svc.path : '';
  const host = `${name}.${namespace}.svc`;
  const url = `https://${host}:${port}${path}?timeout=${timeout}s`;
  const service = cluster.get('/services', namespace, name)?.obj;
  if (!service) throw new CallError(`failed to call webhook: Post ${JSON.stringify(url)}: service ${JSON.stringify(name)} not found`);
  const spec = asRecord(service.spec);
  if (spec.type === 'ExternalName') return { url, connect: { host: String(spec.externalName ?? ''), port }, ca, serverName: host };
  const svcPort = asArray(spec.ports).map(asRecord).find((p) => p.port === port);
  if (!svcPort) throw new CallError(`failed to call webhook: Post ${JSON.stringify(url)}: service ${JSON.stringify(name)} does not have port ${port}`);
  const endpoint = endpointOf(cluster, namespace, name, svcPort);
  if (!endpoint) throw new CallError(`failed to call webhook: Post ${JSON.stringify(url)}: no endpoints available for service ${JSON.stringify(name)}`);
  const dial = `${isIP(endpoint.host) === 6 ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`;
  if (endpoint.pod) {
    return { url, ca, serverName: host, refused: `failed to call webhook: Post ${JSON.stringify(url)}: dial tcp ${dial}: connect: connection refused (pod ${endpoint.pod} is simulated by the embedded API server and runs no process)` };
  }
  return { url, connect: endpoint, ca, serverName: host };
}

interface Endpoint {
  host: string;
  port: number;
  pod?: string;
}

// Go: the endpoint service resolver — a ready address of the Service, on the port its targetPort names.
function endpointOf(cluster: Cluster, namespace: string, service: string, svcPort: Record<string, unknown>): Endpoint | undefined {
  const portName = typeof svcPort.name === 'string' ? svcPort.name : '';
  const target = svcPort.targetPort ?? svcPort.port;
  const slices = cluster.tables.get('discovery.k8s.io/endpointslices');
  for (const s of slices?.objects.values() ?? []) {
    const o = s.obj;
    if (o.metadata.namespace !== namespace || o.metadata.labels?.['kubernetes.io/service-name'] !== service) continue;
    const port = asArray(o.ports).map(asRecord).find((p) => (p.name ?? '') === portName) ?? asArray(o.ports).map(asRecord)[0];
    const portNumber = typeof port?.port === 'number' ? port.port : typeof target === 'number' ? target : undefined;
    if (portNumber === undefined) continue;
    for (const ep of asArray(o.endpoints).map(asRecord)) {
      if (asRecord(ep.conditions).ready === false) continue;
      const address = asArray(ep.addresses).map(String)[0];
      if (!address) continue;
      return { host: address, port: portNumber, pod: podRef(ep.targetRef, namespace) };
    }
  }
  const eps = cluster.get('/endpoints', namespace, service)?.obj;
  for (const subset of asArray(eps?.subsets).map(asRecord)) {
    const port = asArray(subset.ports).map(asRecord).find((p) => (p.name ?? '') === portName) ?? asArray(subset.ports).map(asRecord)[0];
    const address = asArray(subset.addresses).map(asRecord)[0];
    if (!port || !address || typeof port.port !== 'number') continue;
    return { host: String(address.ip ?? address.hostname ?? ''), port: port.port, pod: podRef(address.targetRef, namespace) };
  }
  return undefined;
}

function podRef(ref: unknown, namespace: string): string | undefined {
  const r = asRecord(ref);
  return r.kind === 'Pod' ? `${String(r.namespace ?? namespace)}/${String(r.name ?? '')}` : undefined;
}

function post(t: Target, body: string, timeoutSeconds: number): Promise<string> {
  if (t.refused) return Promise.reject(new CallError(t.refused));
  return new Promise((resolvePromise, reject) => {
    const u = new URL(t.url);
    const secure = u.protocol === 'https:';
    const options = {
      method: 'POST',
      host: t.connect?.host ?? u.hostname.replace(/^\[|\]$/g, ''),
      port: t.connect?.port ?? (u.port ? Number(u.port) : secure ? 443 : 80),
      path: `${u.pathname}${u.search}`,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': Buffer.byteLength(body), Host: u.host },
      ca: t.ca,
      servername: t.serverName ?? (isIP(u.hostname) ? undefined : u.hostname),
      timeout: timeoutSeconds * 1000,
    };
    const fail = (why: string) => reject(new CallError(`failed to call webhook: Post ${JSON.stringify(t.url)}: ${why}`));
    const req = (secure ? httpsRequest : httpRequest)(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) return fail(`the server responded with the status code ${res.statusCode} but did not return more information`);
        resolvePromise(text);
      });
      res.on('error', (e) => fail(e.message));
    });
    req.on('socket', keepErrorListener);
    const deadline = setTimeout(() => req.destroy(new Error('context deadline exceeded')), timeoutSeconds * 1000);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new Error('context deadline exceeded')));
    req.on('error', (e: NodeJS.ErrnoException) => fail(dialError(e, options.host, options.port)));
    req.end(body);
  });
}

// A socket of Node's keep-alive agent has no 'error' listener for a tick after a response ends (the client's is taken
// off, the agent's not yet put on); an error then would be unhandled and end the thread. Each socket gets one of ours
// for its whole life, once (sockets are reused).
const listened = new WeakSet<Socket>();
function keepErrorListener(s: Socket): void {
  if (listened.has(s)) return;
  listened.add(s);
  s.on('error', () => undefined);
}

// Go's net error wording for what Node reports.
function dialError(e: NodeJS.ErrnoException, host: string, port: number): string {
  const addr = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${host}: no such host`;
    case 'ETIMEDOUT':
      return `dial tcp ${addr}: i/o timeout`;
    default:
      if (e.message === 'context deadline exceeded') return 'context deadline exceeded';
      if (/certificate|self.signed|CERT_|UNABLE_TO/i.test(`${e.code ?? ''} ${e.message}`)) return `tls: failed to verify certificate: ${e.message}`;
      return e.message;
  }
}

// ----------------------------------------------------------------------------- dispatch

function failurePolicyIgnores(hook: Hook): boolean {
  return hook.spec.failurePolicy === 'Ignore';
}

/** dispatchMutating calls the matching mutating webhooks in order and returns the mutated object. */
export async function dispatchMutating(cluster: Cluster, user: UserInfo, a: AdmissionAttributes): Promise<KubeObject> {
  let obj = clone(a.object!);
  const hooks = relevant(cluster, MUTATING, a);
  // Go: reinvocationPolicy IfNeeded — a webhook called before a later one changed the object is called once more.
  const calledAt = new Map<string, number>();
  let changes = 0;
  const run = async (r: Relevant): Promise<void> => {
    const attrs = { ...a, object: obj };
    checkDryRun(r.hook, attrs);
    const request = reviewRequest(attrs, r.version, user);
    let response: Record<string, unknown>;
    try {
      if (!conditionsHold(r.hook, request)) return;
      response = await call(cluster, r.hook, request);
    } catch (e) {
      if (!(e instanceof CallError)) throw e;
      if (failurePolicyIgnores(r.hook)) return;
      throw internalError(r.hook, e.message);
    }
    calledAt.set(r.hook.configuration + '/' + r.hook.name, changes);
    for (const w of asArray(response.warnings).map(String)) a.warnings.push(w);
    if (response.allowed !== true) throw denied(r.hook, isPlainObject(response.result) ? response.result : isPlainObject(response.status) ? response.status : undefined);
    if (typeof response.patch !== 'string' || response.patch === '') return;
    if (response.patchType !== 'JSONPatch') {
      const e = new CallError(`unsupported patch type ${JSON.stringify(response.patchType ?? '')}`);
      if (failurePolicyIgnores(r.hook)) return;
      throw internalError(r.hook, e.message);
    }
    let patched: KubeObject;
    try {
      const ops = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as unknown;
      patched = convert({ ...a, version: r.version }, applyJsonPatch(convert(a, obj, r.version)!, ops) as KubeObject, a.version)!;
    } catch (e) {
      if (failurePolicyIgnores(r.hook)) return;
      throw internalError(r.hook, `JSON patch could not be applied: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!deepEqual(patched, obj)) {
      obj = patched;
      changes++;
    }
  };
  for (const r of hooks) await run(r);
  if (changes > 0) {
    for (const r of hooks) {
      const at = calledAt.get(r.hook.configuration + '/' + r.hook.name);
      if (r.hook.spec.reinvocationPolicy === 'IfNeeded' && at !== undefined && at < changes) await run(r);
    }
  }
  return obj;
}

/** dispatchValidating calls the matching validating webhooks (in parallel, as kube does); throws the first denial. */
export async function dispatchValidating(cluster: Cluster, user: UserInfo, a: AdmissionAttributes): Promise<void> {
  const hooks = relevant(cluster, VALIDATING, a);
  for (const r of hooks) checkDryRun(r.hook, a);
  const outcomes = await Promise.all(
    hooks.map(async (r): Promise<StatusError | undefined> => {
      const request = reviewRequest(a, r.version, user);
      try {
        if (!conditionsHold(r.hook, request)) return undefined;
        const response = await call(cluster, r.hook, request);
        for (const w of asArray(response.warnings).map(String)) a.warnings.push(w);
        if (response.allowed === true) return undefined;
        return denied(r.hook, isPlainObject(response.result) ? response.result : isPlainObject(response.status) ? response.status : undefined);
      } catch (e) {
        if (!(e instanceof CallError)) throw e;
        return failurePolicyIgnores(r.hook) ? undefined : internalError(r.hook, e.message);
      }
    }),
  );
  const err = outcomes.find((x) => x !== undefined);
  if (err) throw err;
}
