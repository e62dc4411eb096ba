// ripple-up: end-to-end helpers — `bin/ripple.js up` as a child process on a temporary data directory, and kubectl
// (/usr/bin/kubectl, the reference client) against the kubeconfig it writes. Tests drive and check everything
// through these two, never through Ripple's internal APIs.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'ripple.js');
/** KUBECTL is the reference client the end-to-end tests use. */
export const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';

/** Exit is how a process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** RippleUp is a running `ripple up` child process. */
export interface RippleUp {
  readonly dir: string;
  readonly kubeconfig: string;
  /** Everything it printed on stdout so far. */
  stdout(): string;
  stderr(): string;
  /** waitFor resolves once stdout matches (searching from `from`, an offset into stdout), or rejects on exit/timeout. */
  waitFor(re: RegExp, o?: { timeoutMs?: number; from?: number }): Promise<RegExpMatchArray>;
  /** exited resolves when the process ends. */
  readonly exited: Promise<Exit>;
  /** stop sends the signal and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

/** tempDataDir makes a fresh data directory; remove() deletes it. */
export function tempDataDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-e2e-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** startRippleUp spawns `ripple up --data-dir DIR ...args`. */
export function startRippleUp(dir: string, args: string[]): RippleUp {
  return startRipple(dir, ['up', '--data-dir', dir, ...args]);
}

/** startRipple spawns `ripple ...argv` in dir (any command: apiserver, manager, …); kubeconfig is DIR/kubeconfig. */
export function startRipple(dir: string, argv: string[]): RippleUp {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...argv], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'production' } });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
    for (const l of listeners) l();
  });
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let done = false;
  void exited.then(() => {
    done = true;
    for (const l of listeners) l();
  });
  return {
    dir,
    kubeconfig: join(dir, 'kubeconfig'),
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(re, { timeoutMs = 30_000, from = 0 } = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.slice(from).match(re);
          if (m) return finish(() => resolve(m));
          if (done) finish(() => reject(new Error(`ripple up exited before printing ${re}\n--- stdout\n${out}\n--- stderr\n${err}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`ripple up did not print ${re} within ${timeoutMs} ms\n--- stdout\n${out}\n--- stderr\n${err}`))), timeoutMs);
        const finish = (f: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          f();
        };
        listeners.add(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (!done) child.kill(signal);
      return exited;
    },
  };
}

/** KubectlResult is a finished kubectl run. */
export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** kubectl runs kubectl with KUBECONFIG set to the data directory's kubeconfig. */
export function kubectl(kubeconfig: string, args: string[], stdin?: string): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(KUBECTL, args, { env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

/** Kubectl is kubectl bound to one kubeconfig, with JSON helpers that throw on failure. */
export interface Kubectl {
  run(args: string[], stdin?: string): Promise<KubectlResult>;
  /** ok runs and throws unless kubectl exits 0; returns stdout. */
  ok(args: string[], stdin?: string): Promise<string>;
  /** json runs `kubectl ... -o json` and parses the output. */
  json<T = Record<string, unknown>>(args: string[]): Promise<T>;
  /** items lists objects: `kubectl get KIND ... -o json` → items. */
  items<T = K8sObject>(context: string, args: string[]): Promise<T[]>;
  /** applyYaml writes YAML to a file in dir and applies it to the context. */
  applyYaml(context: string, yaml: string, extra?: string[]): Promise<string>;
}

/** K8sObject is the little of an object the tests read. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string>; deletionTimestamp?: string; uid?: string; resourceVersion?: string };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [k: string]: unknown;
}

let fileSeq = 0;

/** kubectlFor binds kubectl to a kubeconfig; YAML applied through it is written to files under dir. */
export function kubectlFor(kubeconfig: string, dir: string): Kubectl {
  const k: Kubectl = {
    run: (args, stdin) => kubectl(kubeconfig, args, stdin),
    async ok(args, stdin) {
      const r = await kubectl(kubeconfig, args, stdin);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}${r.stdout}`);
      return r.stdout;
    },
    async json(args) {
      return JSON.parse(await k.ok([...args, '-o', 'json'])) as never;
    },
    async items(context, args) {
      const list = await k.json<{ items: unknown[] }>(['--context', context, 'get', ...args]);
      return list.items as never;
    },
    async applyYaml(context, yaml, extra = []) {
      const file = join(dir, `applied-${++fileSeq}.yaml`);
      writeFileSync(file, yaml);
      return k.ok(['--context', context, 'apply', '-f', file, ...extra]);
    },
  };
  return k;
}

/** until polls an async read (kubectl is a process per call, hence 100 ms between reads) until ok holds. */
export function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  return eventually(read, ok, { timeoutMs, intervalMs: 100, message: what });
}

/**
 * SERVICE_INFO_EVENTS is the management-cluster side of the e2e event scenarios: an EventSource matching Services
 * labelled sveltos=fv, an EventTrigger (clusters env=fv, oneForEvent) and its template ConfigMap, which deploys a
 * `<service>-info` ConfigMap with the Service's first port and the cluster's name into the Service's cluster.
 */
export const SERVICE_INFO_EVENTS = `apiVersion: lib.projectsveltos.io/v1beta1
kind: EventSource
metadata:
  name: labelled-services
spec:
  collectResources: true
  resourceSelectors:
  - group: ""
    version: v1
    kind: Service
    labelFilters:
    - key: sveltos
      operation: Equal
      value: fv
---
apiVersion: lib.projectsveltos.io/v1beta1
kind: EventTrigger
metadata:
  name: info-per-service
spec:
  sourceClusterSelector:
    matchLabels:
      env: fv
  eventSourceName: labelled-services
  oneForEvent: true
  policyRefs:
  - name: per-service
    namespace: default
    kind: ConfigMap
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: per-service
  namespace: default
  annotations:
    projectsveltos.io/template: "ok"
data:
  info.yaml: |
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: {{ .Resource.metadata.name }}-info
      namespace: {{ .Resource.metadata.namespace }}
    data:
      port: "{{ (index .Resource.spec.ports 0).port }}"
      cluster: {{ .Cluster.metadata.name }}
`;
