// runner.ts: runs a demo against clusters reached through plain clients, as a user with kubectl would — applies its
// setup and each step's actions (server-side apply; missing namespaces created like `kubectl create namespace`),
// then waits for every expected outcome through watches (no polling) and reports each with its latency. For
// exploring, it runs the setup and the `explore` steps and leaves the rest as kubectl suggestions; with `once`, it
// runs every step and stops at the first outcome that does not happen in time, saying what was seen instead.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stringify } from 'yaml';
import { InformerFactory, errorMessage, isAlreadyExists, isNotFound, type KubeClient, type KubeObject, type Subscription } from '../kube/index.js';
import { diagnose } from './diagnose.js';
import { pickSeed, seedRefText, type SeedDoc } from './seeds.js';
import type { Action, Demo, Expectation, Objects, Step, Vars } from './types.js';

/** DemoEnv is what a demo runs against: a client per cluster name (the user's credentials). */
export interface DemoEnv {
  client(cluster: string): KubeClient;
  /** Name of the management cluster's context (diagnostics read it). */
  mgmt: string;
  /** Publishes a CloudEvent (needed by demos with publish actions; `ripple up` provides it with its NATS server). */
  publish?(subject: string, event: Record<string, unknown>): Promise<void>;
}

/** RunOptions configures runDemo. */
export interface RunOptions {
  /** Run every step and check every outcome (else: setup + explore steps only). */
  once: boolean;
  /** Receives each line the runner prints. */
  write(line: string): void;
  /** The seed documents (loadSeedDocs()). */
  seeds: readonly SeedDoc[];
  /** Where the YAML each action applies is written, for the user to re-apply (optional). */
  filesDir?: string;
  /** Shown instead of filesDir in printed commands (e.g. relative to the working directory). */
  displayDir?: string;
  /** How long one outcome may take (default 30 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Values for `{NAME}` placeholders in inline objects (e.g. chartRepo: the URL of the demo's chart repository). */
  vars?: Record<string, string>;
}

/** OutcomeResult is one checked expectation. */
export interface OutcomeResult {
  what: string;
  ok: boolean;
  /** Milliseconds from the start of the step's actions until it held. */
  latencyMs?: number;
  /** What was seen instead (failed outcomes). */
  detail?: string;
}

/** StepResult is one step of a run. */
export interface StepResult {
  title: string;
  ran: boolean;
  outcomes: OutcomeResult[];
}

/** DemoReport is the result of runDemo. */
export interface DemoReport {
  demo: string;
  ok: boolean;
  steps: StepResult[];
  durationMs: number;
  /** Why the run failed: the expectation and the relevant status and Events. */
  failure?: { step: string; what: string; detail: string; diagnostics: string[] };
}

interface Resolved {
  cluster: string;
  namespace?: string;
  objects: KubeObject[];
  /** Where they come from: `seed 000 block 1` or `written for the demo: why`. */
  source: string;
  file?: string;
}

const FIELD_MANAGER = 'ripple-demo';
const NS = { apiVersion: 'v1', kind: 'Namespace' } as const;

/** runDemo runs the demo; see the file comment. It throws only for broken input (unknown seed block). */
export async function runDemo(demo: Demo, env: DemoEnv, o: RunOptions): Promise<DemoReport> {
  return new Runner(demo, env, o).run();
}

class Runner {
  private readonly factories = new Map<string, InformerFactory>();
  private readonly files = new Map<Action, Resolved>();
  private fileSeq = 0;
  private readonly started = Date.now();

  constructor(
    private readonly demo: Demo,
    private readonly env: DemoEnv,
    private readonly o: RunOptions,
  ) {}

  async run(): Promise<DemoReport> {
    const report: DemoReport = { demo: this.demo.name, ok: true, steps: [], durationMs: 0 };
    try {
      // Resolve (and write) everything first: a broken reference fails before anything is applied, and the files of
      // later steps exist for the user to apply by hand.
      for (const a of [...this.demo.setup, ...this.demo.steps.flatMap((s) => s.actions)]) if (a.type === 'apply') this.files.set(a, this.resolve(a));
      for (const a of this.demo.setup) await this.act(a, 'setup');
      const steps = this.demo.steps;
      for (const [i, step] of steps.entries()) {
        const run = this.o.once || step.explore === true;
        const result: StepResult = { title: step.title, ran: run, outcomes: [] };
        report.steps.push(result);
        if (!run) continue;
        this.o.write(`▶ step ${i + 1}/${steps.length}: ${step.title}`);
        const failure = await this.runStep(step, result);
        if (failure) {
          report.ok = false;
          report.failure = { step: step.title, ...failure };
          break;
        }
        if (this.o.signal?.aborted) break;
      }
      const next = report.steps.map((r, i) => ({ r, i })).filter(({ r }) => !r.ran);
      if (!this.o.once && report.ok && next.length > 0) {
        this.o.write('▶ your turn — the remaining steps, to run yourself:');
        for (const { i } of next) {
          const step = steps[i];
          this.o.write(`    step ${i + 1}: ${step.title}`);
          for (const a of step.actions) this.o.write(`      ${this.commandOf(a)}`);
        }
      }
    } finally {
      await Promise.all([...this.factories.values()].map((f) => f.stop()));
    }
    report.durationMs = Date.now() - this.started;
    return report;
  }

  private async runStep(step: Step, result: StepResult): Promise<{ what: string; detail: string; diagnostics: string[] } | undefined> {
    const t0 = performance.now();
    for (const a of step.actions) await this.act(a, 'step');
    const vars: Vars = new Map();
    // In order: a later outcome may use what an earlier one observed (vars), and each is checked on the current
    // state first, so nothing that happened meanwhile is missed.
    for (const e of step.expect) {
      const r = await this.await(e, vars, t0);
      result.outcomes.push(r);
      if (!r.ok) {
        this.o.write(`  ✗ ${e.what}: ${r.detail}`);
        return { what: e.what, detail: r.detail ?? '', diagnostics: await diagnose(this.env.client(this.env.mgmt)).catch((err: unknown) => [`(diagnostics unavailable: ${errorMessage(err)})`]) };
      }
      this.o.write(`  ✓ ${formatMs(r.latencyMs!).padStart(8)}  ${e.what}`);
    }
    return undefined;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // actions

  private resolve(a: Action & { type: 'apply' }): Resolved {
    const { objects, source, texts } = this.objectsOf(a.objects);
    const r: Resolved = { cluster: a.cluster, namespace: a.namespace, objects, source };
    if (this.o.filesDir) {
      mkdirSync(this.o.filesDir, { recursive: true });
      const seq = String(++this.fileSeq).padStart(2, '0');
      const slug = 'seed' in a.objects ? `seed-${a.objects.seed.seed}-block-${a.objects.seed.block}` : objects.map((x) => x.metadata.name).join('-').slice(0, 60);
      const file = join(this.o.filesDir, `${seq}-${a.cluster}-${slug}.yaml`);
      writeFileSync(file, `# ${source}; ripple up --demo ${this.demo.name} applies it to cluster ${a.cluster}${a.namespace ? ` (namespace ${a.namespace})` : ''}\n${texts.join('---\n')}`);
      r.file = file;
    }
    return r;
  }

  private objectsOf(src: Objects): { objects: KubeObject[]; source: string; texts: string[] } {
    if ('seed' in src) {
      const docs = pickSeed(this.o.seeds, src.seed);
      return { objects: docs.map((d) => d.object), source: `${seedRefText(src.seed)} (${docs[0].document})`, texts: docs.map((d) => d.text) };
    }
    const objects = src.inline.map((x) => substitute(structuredClone(x), this.o.vars ?? {}));
    return { objects, source: `written for the demo: ${src.why}`, texts: objects.map((x) => stringify(x)) };
  }

  /** commandOf is the kubectl command doing what an action does. */
  private commandOf(a: Action): string {
    if (a.type === 'publish') {
      const e = a.event;
      const q = (v: string) => (/^[\w./:-]+$/.test(v) ? v : `'${v.replaceAll("'", "'\\''")}'`);
      const server = this.o.vars?.natsUrl ?? '{natsUrl}';
      return `ripple publish-cloudevent --server ${server}${this.demo.nats ? ' --jetstream' : ''} --subject ${q(a.subject)} --type ${q(e.type)} --source ${q(e.source)}${e.subject ? ` --ce-subject ${q(e.subject)}` : ''}${e.data !== undefined ? ` --data ${q(JSON.stringify(e.data))}` : ''}`;
    }
    if (a.type === 'delete') {
      const ref = a.ref;
      return `kubectl --context ${a.cluster}${ref.namespace ? ` -n ${ref.namespace}` : ''} delete ${ref.kind.toLowerCase()} ${ref.name}`;
    }
    const r = this.files.get(a) ?? this.resolve(a);
    const file = r.file ? (this.o.displayDir ? join(this.o.displayDir, relative(this.o.filesDir!, r.file)) : r.file) : '<file>';
    return `kubectl --context ${r.cluster}${r.namespace ? ` -n ${r.namespace}` : ''} apply --server-side -f ${file}`;
  }

  private async act(a: Action, phase: 'setup' | 'step'): Promise<void> {
    const lead = phase === 'setup' ? '▶ setup: ' : '  ';
    if (a.type === 'publish') {
      if (!this.env.publish) throw new Error(`demo ${this.demo.name} publishes CloudEvents: run it with ripple up, which starts a NATS server for it`);
      const e = a.event;
      const event = { specversion: '1.0', id: randomUUID(), source: e.source, type: e.type, ...(e.subject ? { subject: e.subject } : {}), datacontenttype: 'application/json', data: e.data ?? {} };
      this.o.write(`${lead}publish CloudEvent ${e.type} (source ${e.source}${e.subject ? `, subject ${e.subject}` : ''}) on NATS subject ${a.subject}`);
      this.o.write(`      (${this.commandOf(a)})`);
      await this.env.publish(a.subject, event);
      return;
    }
    const client = this.env.client(a.cluster);
    if (a.type === 'delete') {
      const ref = a.ref;
      this.o.write(`${lead}delete ${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name} in ${a.cluster}`);
      this.o.write(`      (${this.commandOf(a)})`);
      try {
        await client.delete(ref);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      return;
    }
    const r = this.files.get(a) ?? this.resolve(a);
    const names: string[] = [];
    for (const obj of r.objects) {
      const info = await client.resource({ apiVersion: obj.apiVersion, kind: obj.kind });
      if (info.namespaced) {
        obj.metadata.namespace ??= r.namespace ?? 'default';
        await this.ensureNamespace(client, a.cluster, obj.metadata.namespace);
      }
      await client.apply(obj, { fieldManager: FIELD_MANAGER, force: true });
      names.push(`${obj.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name}`);
    }
    this.o.write(`${lead}apply ${r.source} to ${a.cluster}: ${names.join(', ')}`);
    this.o.write(`      (${this.commandOf(a)})`);
  }

  private readonly namespaces = new Set<string>();

  private async ensureNamespace(client: KubeClient, cluster: string, ns: string): Promise<void> {
    const key = `${cluster}/${ns}`;
    if (this.namespaces.has(key)) return;
    if (!(await client.getIfExists({ ...NS, name: ns }))) {
      try {
        await client.create({ ...NS, metadata: { name: ns } });
        this.o.write(`  create namespace ${ns} in ${cluster}   (kubectl --context ${cluster} create namespace ${ns})`);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
    this.namespaces.add(key);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // outcomes

  private factory(cluster: string): InformerFactory {
    let f = this.factories.get(cluster);
    if (!f) {
      f = new InformerFactory(this.env.client(cluster));
      this.factories.set(cluster, f);
    }
    return f;
  }

  private like(e: Expectation): ((o: KubeObject) => string | undefined) | undefined {
    if (!e.like) return undefined;
    const [out] = pickSeed(this.o.seeds, e.like.seed, 'output');
    const expected = out.object as unknown as Record<string, unknown>;
    const where = seedRefText(e.like.seed);
    return (o) => {
      for (const f of e.like!.fields) {
        const diff = subsetDiff(expected[f], (o as unknown as Record<string, unknown>)[f], f);
        if (diff) return `differs from ${where}: ${diff}`;
      }
      return undefined;
    };
  }

  private await(e: Expectation, vars: Vars, t0: number): Promise<OutcomeResult> {
    const timeoutMs = this.o.timeoutMs ?? 30_000;
    const like = this.like(e);
    const { apiVersion, kind, namespace, name } = e.find;
    let last = 'nothing observed yet';
    let synced = false;
    let sub: Subscription<KubeObject> | undefined;
    return new Promise<OutcomeResult>((resolve) => {
      let done = false;
      const finish = (r: OutcomeResult) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.o.signal?.removeEventListener('abort', onAbort);
        void sub?.unsubscribe();
        resolve(r);
      };
      // Evaluated on the synced cache, then on every change of the kind in that namespace.
      const evaluate = () => {
        if (done || !synced || !sub) return;
        const all = sub.informer.cache.list(namespace ? { namespace } : {});
        const missing = verdict(e, name ? all.filter((x) => x.metadata.name === name) : all, vars, like);
        if (missing === undefined) finish({ what: e.what, ok: true, latencyMs: performance.now() - t0 });
        else last = missing;
      };
      const onAbort = () => finish({ what: e.what, ok: false, detail: 'interrupted' });
      const timer = setTimeout(() => finish({ what: e.what, ok: false, detail: `not within ${timeoutMs / 1000} s — ${last}` }), timeoutMs);
      this.o.signal?.addEventListener('abort', onAbort);
      sub = this.factory(e.cluster).subscribe<KubeObject>({ apiVersion, kind, namespace }, { onAdd: evaluate, onUpdate: evaluate, onDelete: evaluate });
      sub.informer.waitForSync({ timeoutMs }).then(
        () => {
          synced = true;
          evaluate();
        },
        (err: unknown) => (last = `cannot watch ${kind} in ${e.cluster}: ${errorMessage(err)}`),
      );
    });
  }
}

/** verdict is undefined when the expectation holds for the objects found, else what is missing. */
function verdict(e: Expectation, found: readonly KubeObject[], vars: Vars, like: ((o: KubeObject) => string | undefined) | undefined): string | undefined {
  const live = found.filter((o) => !o.metadata.deletionTimestamp);
  if (e.absent) return found.length === 0 ? undefined : `still present: ${found.map((o) => o.metadata.name).join(', ')}${found.length > live.length ? ' (being deleted)' : ''}`;
  if (e.check) {
    const c = e.check(live, vars);
    if (c !== undefined) return c;
  } else if (live.length === 0) {
    return 'not found';
  }
  if (like) for (const o of live) {
    const d = like(o);
    if (d) return d;
  }
  return undefined;
}

/** subsetDiff says where `actual` does not contain `expected` (undefined when it does). */
export function subsetDiff(expected: unknown, actual: unknown, path: string): string | undefined {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected a list, got ${JSON.stringify(actual)}`;
    if (actual.length !== expected.length) return `${path}: expected ${expected.length} item(s), got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) {
      const d = subsetDiff(expected[i], actual[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [k, v] of Object.entries(expected)) {
      const d = subsetDiff(v, (actual as Record<string, unknown>)[k], `${path}.${k}`);
      if (d) return d;
    }
    return undefined;
  }
  return expected === actual ? undefined : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

/** substitute replaces `{NAME}` in every string of v by vars[NAME] (unknown names are left as they are). */
export function substitute<T>(v: T, vars: Record<string, string>): T {
  if (typeof v === 'string') return v.replace(/\{([A-Za-z][A-Za-z0-9]*)\}/g, (m, k: string) => (Object.hasOwn(vars, k) ? vars[k] : m)) as T;
  if (Array.isArray(v)) return v.map((x) => substitute(x, vars)) as T;
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, vars)])) as T;
  return v;
}

/** formatMs prints a latency: `12 ms`, `1.23 s`. */
export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}
