// apiserver bench: the measurements of ../shared/anchors/kubebench.mjs (sequential create latency, 32-in-flight
// creates/s, list of 2,300 objects, create→watch-event latency) against a fresh embedded server. The client runs on
// a worker thread so it does not share the server's event loop, as kubebench runs in its own process.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { startApiServer, type Durability } from './index.js';

/** ANCHORS: real kube-apiserver 1.32 + etcd on these machines (DESIGN.md), and Ripple's targets. */
const ANCHORS = { parCreate_per_s: 830, watch_p50_ms: 1.7, list2300_ms: 50 };
const TARGETS = { parCreate_per_s: 1700, watch_p50_ms: 1 };

// The client, as plain JavaScript for the worker (same requests and arithmetic as kubebench.mjs).
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const https = require('node:https');
const { performance } = require('node:perf_hooks');
const url = new URL(workerData.server);
const mod = url.protocol === 'https:' ? https : http;
const prefix = url.pathname.replace(/\\/$/, '');
const agent = new mod.Agent({ keepAlive: true, maxSockets: 64, rejectUnauthorized: false });
const ns = 'bench-' + Date.now();
const token = workerData.token;
function req(method, path, body) {
  return new Promise((resolve, reject) => {
    const data = body ? JSON.stringify(body) : null;
    const r = mod.request({ hostname: url.hostname, port: url.port, path: prefix + path, method, agent,
      headers: { authorization: 'Bearer ' + token, accept: 'application/json',
        ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}) } }, (res) => {
      let buf = ''; res.setEncoding('utf8'); res.on('data', (c) => buf += c);
      res.on('end', () => res.statusCode >= 300 ? reject(new Error(method + ' ' + path + ' ' + res.statusCode + ' ' + buf.slice(0, 200))) : resolve(buf ? JSON.parse(buf) : null));
    });
    r.on('error', reject); if (data) r.write(data); r.end();
  });
}
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const cm = (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels: { bench: 'yes' } }, data: { k: 'v'.repeat(200) } });
(async () => {
  await req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const out = {};
  let lat = [];
  for (let i = 0; i < 300; i++) { const t = performance.now(); await req('POST', '/api/v1/namespaces/' + ns + '/configmaps', cm('seq-' + i)); lat.push(performance.now() - t); }
  out.seqCreate_p50_ms = +pct(lat, 0.5).toFixed(2); out.seqCreate_p99_ms = +pct(lat, 0.99).toFixed(2);
  { const N = 2000, C = 32; let next = 0; const t = performance.now();
    await Promise.all(Array.from({ length: C }, async () => { while (next < N) { const i = next++; await req('POST', '/api/v1/namespaces/' + ns + '/configmaps', cm('par-' + i)); } }));
    out.parCreate_per_s = Math.round(N / ((performance.now() - t) / 1000)); }
  { const t = performance.now(); const l = await req('GET', '/api/v1/namespaces/' + ns + '/configmaps'); out.list2300_ms = +(performance.now() - t).toFixed(1); out.listed = l.items.length; }
  { lat = []; for (let i = 0; i < 1000; i++) { const t = performance.now(); await req('GET', '/api/v1/namespaces/' + ns + '/configmaps/seq-' + (i % 300)); lat.push(performance.now() - t); }
    out.seqGet_p50_ms = +pct(lat, 0.5).toFixed(3); out.seqGet_p99_ms = +pct(lat, 0.99).toFixed(3); }
  { const l = await req('GET', '/api/v1/namespaces/' + ns + '/configmaps?limit=1'); const rv = l.metadata.resourceVersion;
    const pending = new Map(); const lats = [];
    const wreq = mod.request({ hostname: url.hostname, port: url.port, path: prefix + '/api/v1/namespaces/' + ns + '/configmaps?watch=1&resourceVersion=' + rv, agent: new mod.Agent({ rejectUnauthorized: false }),
      headers: { authorization: 'Bearer ' + token } }, (res) => {
      let buf = ''; res.setEncoding('utf8');
      res.on('data', (c) => { buf += c; let i; while ((i = buf.indexOf('\\n')) >= 0) { const line = buf.slice(0, i); buf = buf.slice(i + 1); if (!line.trim()) continue;
        const ev = JSON.parse(line); const n = ev.object && ev.object.metadata && ev.object.metadata.name; if (pending.has(n)) { lats.push(performance.now() - pending.get(n)); pending.get(n + ':r')(); } } });
    }); wreq.end();
    await new Promise((r) => setTimeout(r, 300));
    for (let i = 0; i < 200; i++) { const name = 'w-' + i; await new Promise((resolve) => { pending.set(name + ':r', resolve); pending.set(name, performance.now()); req('POST', '/api/v1/namespaces/' + ns + '/configmaps', cm(name)); }); }
    out.watch_p50_ms = +pct(lats, 0.5).toFixed(2); out.watch_p99_ms = +pct(lats, 0.99).toFixed(2); wreq.destroy(); }
  await req('DELETE', '/api/v1/namespaces/' + ns).catch(() => {});
  parentPort.postMessage(out);
})().catch((e) => parentPort.postMessage({ error: e.message }));
`;

/** measure runs the kubebench measurements once against a fresh server. */
export async function measure(durability: Durability, protocol: 'https' | 'http'): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-bench-'));
  const server = await startApiServer({ dataDir: dir, clusters: ['bench'], durability, plainHttp: true });
  try {
    const info = server.cluster('bench');
    const worker = new Worker(CLIENT, { eval: true, workerData: { server: protocol === 'https' ? info.server : info.httpServer, token: info.token } });
    const result = await new Promise<Record<string, unknown>>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    if (typeof result.error === 'string') throw new Error(result.error);
    return result;
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// A ServiceAccount allowed what the bench does through a ClusterRoleBinding, in a cluster with 500 unrelated bindings
// (other accounts' RoleBindings to view) so the subject index has something to skip; returns its TokenRequest token.
async function serviceAccountToken(base: string, adminToken: string): Promise<string> {
  const post = async (path: string, body: object) => {
    const r = await fetch(base + path, { method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (r.status >= 300) throw new Error(`POST ${path}: ${r.status} ${await r.text()}`);
    return (await r.json()) as Record<string, unknown>;
  };
  const RBAC = '/apis/rbac.authorization.k8s.io/v1';
  await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench-sa' } });
  await post('/api/v1/namespaces/bench-sa/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bench' } });
  await post(`${RBAC}/clusterroles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'bench' },
    rules: [
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get'] },
      { apiGroups: ['apps'], resources: ['deployments', 'statefulsets'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['one'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'list', 'watch', 'delete'] },
    ],
  });
  await post(`${RBAC}/clusterrolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'bench' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'bench' }, subjects: [{ kind: 'ServiceAccount', name: 'bench', namespace: 'bench-sa' }] });
  for (let i = 0; i < 500; i++) {
    await post(`/api/v1/namespaces/bench-sa/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: `other-${i}` } }).catch(() => undefined);
    await post(`${RBAC}/namespaces/bench-sa/rolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: `other-${i}` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'ServiceAccount', name: `other-${i}` }] });
  }
  const tr = await post('/api/v1/namespaces/bench-sa/serviceaccounts/bench/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
  return String((tr.status as Record<string, unknown>).token);
}

// The overhead client: the same requests as the admin, as the admin again (the control: the noise floor) and as the
// ServiceAccount, interleaved one by one (which goes first rotates), so that whatever else the shared machine does hits
// all alike; medians compared.
const OVERHEAD_CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const https = require('node:https');
const { performance } = require('node:perf_hooks');
const url = new URL(workerData.server);
const prefix = url.pathname.replace(/\\/$/, '');
const agent = new https.Agent({ keepAlive: true, maxSockets: 8, rejectUnauthorized: false });
function req(token, method, path, body) {
  return new Promise((resolve, reject) => {
    const data = body ? JSON.stringify(body) : null;
    const r = https.request({ hostname: url.hostname, port: url.port, path: prefix + path, method, agent,
      headers: { authorization: 'Bearer ' + token, accept: 'application/json',
        ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}) } }, (res) => {
      let buf = ''; res.setEncoding('utf8'); res.on('data', (c) => buf += c);
      res.on('end', () => res.statusCode >= 300 ? reject(new Error(method + ' ' + path + ' ' + res.statusCode + ' ' + buf.slice(0, 300))) : resolve(buf));
    });
    r.on('error', reject); if (data) r.write(data); r.end();
  });
}
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const ns = workerData.namespace;
const cm = (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { k: 'v'.repeat(200) } });
(async () => {
  // admin_control repeats the admin's requests with the same token: the spread between the two is the noise floor.
  const who = { admin: workerData.admin, admin_control: workerData.admin, serviceaccount: workerData.serviceaccount };
  const names = Object.keys(who);
  const lat = {};
  for (const k of ['get', 'create', 'list']) { lat[k] = {}; for (const w of names) lat[k][w] = []; }
  await req(who.admin, 'POST', '/api/v1/namespaces/' + ns + '/configmaps', cm('target'));
  const order = (i) => names.map((_, j) => names[(i + j) % names.length]);
  const time = async (kind, w, method, path, body) => { const t = performance.now(); await req(who[w], method, path, body); lat[kind][w].push(performance.now() - t); };
  for (let i = 0; i < 300; i++) await req(who[names[i % 3]], 'GET', '/api/v1/namespaces/' + ns + '/configmaps/target');
  for (let i = 0; i < 3000; i++) for (const w of order(i)) await time('get', w, 'GET', '/api/v1/namespaces/' + ns + '/configmaps/target');
  for (let i = 0; i < 600; i++) for (const w of order(i)) await time('create', w, 'POST', '/api/v1/namespaces/' + ns + '/configmaps', cm(w[0] + w.length + '-' + i));
  for (let i = 0; i < 60; i++) for (const w of order(i)) await time('list', w, 'GET', '/api/v1/namespaces/' + ns + '/configmaps');
  const out = {};
  for (const k of Object.keys(lat)) {
    const a = pct(lat[k].admin, 0.5), c = pct(lat[k].admin_control, 0.5), s = pct(lat[k].serviceaccount, 0.5);
    out[k] = { requests_each: lat[k].admin.length, admin_p50_ms: +a.toFixed(3), admin_control_p50_ms: +c.toFixed(3), serviceaccount_p50_ms: +s.toFixed(3),
      overhead_pct: +((s - a) / a * 100).toFixed(1), noise_floor_pct: +((c - a) / a * 100).toFixed(1) };
  }
  parentPort.postMessage(out);
})().catch((e) => parentPort.postMessage({ error: e.message }));
`;

/** authorizationOverhead compares request latency as the admin (system:masters, which authorization short-circuits)
 * and as a ServiceAccount authenticated by a signed token and authorized by RBAC (500 unrelated bindings in the
 * cluster), over HTTPS against one server, requests interleaved: GETs of one object, creates, lists of ~800 objects. */
export async function authorizationOverhead(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-bench-'));
  const server = await startApiServer({ dataDir: dir, clusters: ['bench'], durability: 'process', plainHttp: true });
  try {
    const info = server.cluster('bench');
    const serviceaccount = await serviceAccountToken(info.httpServer, info.token);
    const namespace = 'bench-authz';
    const r = await fetch(`${info.httpServer}/api/v1/namespaces`, { method: 'POST', headers: { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }) });
    if (r.status !== 201) throw new Error(`creating the bench namespace: ${r.status}`);
    const worker = new Worker(OVERHEAD_CLIENT, { eval: true, workerData: { server: info.server, admin: info.token, serviceaccount, namespace } });
    const result = await new Promise<Record<string, unknown>>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    if (typeof result.error === 'string') throw new Error(result.error);
    return { ...result, budget_pct: 10 };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// The memory probe runs in a fresh process (with --expose-gc) so nothing else lives in its heap: one warm cluster pays
// the one-time costs (built-in schemas, OpenAPI definitions), then N more clusters are added and each is used the
// way kubectl and the agents use a cluster (aggregated discovery, OpenAPI v3 for apply and explain, a list of every
// served resource); RSS after a full GC, per added cluster.
const MEMORY_PROBE = (index: string, simulators: string[], n: number) => `
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const { startApiServer } = await import(${JSON.stringify(index)});
const dir = mkdtempSync(join(tmpdir(), 'ripple-mem-'));
const server = await startApiServer({ dataDir: dir, clusters: ['warm'], simulators: ${JSON.stringify(simulators)}, plainHttp: true });
async function use(name) {
  const c = server.cluster(name);
  const get = async (p, accept = 'application/json') => (await fetch(c.httpServer + p, { headers: { authorization: 'Bearer ' + c.token, accept } })).text();
  const apis = JSON.parse(await get('/apis', 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'));
  const core = JSON.parse(await get('/api', 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'));
  const root = JSON.parse(await get('/openapi/v3'));
  for (const gv of Object.keys(root.paths)) await get('/openapi/v3/' + gv);
  for (const g of [...core.items, ...apis.items]) for (const v of g.versions) for (const r of v.resources) {
    if (!r.verbs.includes('list')) continue;
    const base = g.metadata.name ? '/apis/' + g.metadata.name + '/' + v.version : '/api/' + v.version;
    await get(base + '/' + r.resource);
  }
}
const rss = () => { globalThis.gc(); globalThis.gc(); return process.memoryUsage().rss; };
await use('warm');
await new Promise((r) => setTimeout(r, 200));
const before = rss();
for (let i = 0; i < ${n}; i++) { await server.addCluster('c' + i); await use('c' + i); }
await new Promise((r) => setTimeout(r, 500));
const after = rss();
await server.stop();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(JSON.stringify({ rss_before_mb: +(before / 2 ** 20).toFixed(1), rss_after_mb: +(after / 2 ** 20).toFixed(1), per_cluster_mb: +((after - before) / ${n} / 2 ** 20).toFixed(2) }));
`;

/** memoryPerCluster measures the RSS one more virtual cluster costs, serving every built-in, with the given simulators. */
export function memoryPerCluster(simulators: string[], n = 20): Record<string, unknown> {
  const index = new URL('./index.ts', import.meta.url).href;
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', MEMORY_PROBE(index, simulators, n)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return { clusters_added: n, ...(JSON.parse(out) as Record<string, unknown>) };
}

/** bench runs the kubebench measurements over HTTPS and HTTP, with both durability modes. */
export async function bench(): Promise<Record<string, unknown>> {
  const runs: Record<string, Record<string, unknown>> = {
    'https, durability=process': await measure('process', 'https'),
    'http, durability=process': await measure('process', 'http'),
    'https, durability=power (fsync)': await measure('power', 'https'),
  };
  // The issue's budget: serving all of kube 1.32's built-ins may add at most 10 MB RSS per virtual cluster.
  const memory = {
    'all built-ins, no simulators': memoryPerCluster([]),
    'all built-ins, all simulators (ripple up)': memoryPerCluster(['workloads', 'volumes', 'node', 'rootca', 'tokens']),
    target_per_cluster_mb: 10,
  };
  const main = runs['https, durability=process'];
  const authorization = await authorizationOverhead();
  const ratio = (a: unknown, b: number) => (typeof a === 'number' ? +(a / b).toFixed(2) : null);
  return {
    ...runs,
    memory_per_virtual_cluster: memory,
    authorization_overhead: authorization,
    anchors_kube_apiserver_1_32_etcd: ANCHORS,
    targets: TARGETS,
    vs_anchor: {
      parCreate_x: ratio(main.parCreate_per_s, ANCHORS.parCreate_per_s),
      // Issue 22's comparison: fsync before answering, as etcd does (target ≥ 2×).
      parCreate_power_x: ratio(runs['https, durability=power (fsync)'].parCreate_per_s, ANCHORS.parCreate_per_s),
      watch_p50_x_faster: typeof main.watch_p50_ms === 'number' ? +(ANCHORS.watch_p50_ms / main.watch_p50_ms).toFixed(2) : null,
      list2300_x_faster: typeof main.list2300_ms === 'number' ? +(ANCHORS.list2300_ms / main.list2300_ms).toFixed(2) : null,
    },
  };
}
