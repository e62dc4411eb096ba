// health-feature.ts: validateHealths gating of a feature (Resources, Helm). Once a feature is deployed, its checks
// run over the objects they select in the managed cluster (listed, never read from a cache that may lag behind the
// deployment's own writes); the feature stays Provisioning with the check's message until every check passes, and a
// check that cannot run (bad Lua, bad CEL, unsupported check) fails the feature with a Warning Event. While a feature
// waits, an informer per (cluster, kind, namespace) of its checks re-queues the ClusterSummary on every change —
// watch-driven, no polling; once healthy (or failed for good) the watches are released, so a healthy fleet is idle.
// The verdicts themselves are computed by the pure core in health.ts.
// Go: addon-controller controllers/health_checks.go (validateHealthPolicies after deployment)
import type { ClusterProfileSpec, ClusterSummaryStatus, ValidateHealth } from '../api/index.js';
import type { ClusterRegistry } from '../clusters/index.js';
import { errorMessage, isKindNotInstalled, isNotFound, type InformerFactory, type KubeClient, type KubeObject, type Subscription } from '../kube/index.js';
import { createLuaRuntime, type LuaRuntime } from '../lua/index.js';
import type { Logger } from '../obs/index.js';
import { checkApiVersion, checksFor, combine, evaluateCheck, problemOf, selectObjects, type HealthFeature, type HealthVerdict } from './health.js';

type Feature = NonNullable<ClusterSummaryStatus['featureSummaries']>[number];

/** HEALTH_PENDING is the failureReason of a feature deployed but not healthy yet (status Provisioning). */
export const HEALTH_PENDING = 'HealthCheckPending';
/** HEALTH_FAILED is the failureReason of a feature whose checks cannot be evaluated. */
export const HEALTH_FAILED = 'HealthCheckFailed';

/** PRE_DEPLOY_PENDING is the failureReason of a feature whose preDeployChecks do not pass yet (not deployed). */
export const PRE_DEPLOY_PENDING = 'PreDeployCheckPending';
/** PRE_DEPLOY_FAILED is the failureReason of a feature whose preDeployChecks cannot be evaluated. */
export const PRE_DEPLOY_FAILED = 'PreDeployCheckFailed';

/** isHealthGated is true for a feature entry that was deployed and is held back (or failed) by its checks only. */
export function isHealthGated(f: Feature | undefined): boolean {
  return f?.failureReason === HEALTH_PENDING || f?.failureReason === HEALTH_FAILED;
}

/** LuaHost creates the deployer's Lua runtime on first use (health checks, Lua policies) and closes it. */
export class LuaHost {
  private runtime: Promise<LuaRuntime> | undefined;
  get(): Promise<LuaRuntime> {
    this.runtime ??= createLuaRuntime();
    return this.runtime;
  }
  async close(): Promise<void> {
    const r = this.runtime;
    this.runtime = undefined;
    if (r) (await r.catch(() => undefined))?.close();
  }
}

/** GateInput is what the gate needs to know about one feature of one ClusterSummary. */
export interface GateInput {
  /** The ClusterSummary's work-queue key. */
  summary: string;
  /** Registry key of the target cluster. */
  cluster: string;
  spec: ClusterProfileSpec;
  featureID: HealthFeature;
  /** The feature entry as deployed (status Provisioned). */
  deployed: Feature;
  /** The entry in status before this pass (to tell a new message from a repeated one). */
  previous: Feature | undefined;
}

/** GateOutcome is the feature entry to write and, when its message is new, the Event to record. */
export interface GateOutcome {
  feature: Feature;
  event?: { type: 'Normal' | 'Warning'; reason: string; message: string };
}

interface Watch {
  sub: Subscription<KubeObject> | undefined;
  pending: Promise<void> | undefined;
  users: Set<string>;
}

/** HealthGate evaluates validateHealths and watches what they select while a feature waits. */
export class HealthGate {
  private readonly watches = new Map<string, Watch>();
  /** `summary#feature` → the watch keys it holds. */
  private readonly held = new Map<string, Set<string>>();
  private stopped = false;

  constructor(
    private readonly registry: ClusterRegistry,
    private readonly lua: LuaHost,
    private readonly enqueue: (summary: string) => void,
    private readonly log: Logger,
  ) {}

  /** gate runs the feature's checks; returns the entry unchanged when there are none or all pass. */
  async gate(g: GateInput): Promise<GateOutcome> {
    const checks = checksFor(g.spec, g.featureID);
    const user = `${g.summary}#${g.featureID}`;
    if (checks.length === 0) {
      this.release(user);
      return { feature: g.deployed };
    }
    const verdict = await this.check(user, g.cluster, checks);
    const repeated = (reason: string, message: string) => g.previous?.failureReason === reason && g.previous.failureMessage === message;
    if (verdict.state === 'healthy') {
      const event = isHealthGated(g.previous)
        ? { type: 'Normal' as const, reason: 'HealthCheckPassed', message: `${g.featureID}: ${checks.map((c) => c.name).join(', ')} passed; the feature is Provisioned` }
        : undefined;
      return { feature: g.deployed, event };
    }
    if (verdict.state === 'unhealthy') {
      const feature: Feature = { ...g.deployed, status: 'Provisioning', failureReason: HEALTH_PENDING, failureMessage: verdict.message };
      return { feature, event: repeated(HEALTH_PENDING, verdict.message) ? undefined : { type: 'Normal', reason: 'WaitingForHealth', message: `${g.featureID}: ${verdict.message}` } };
    }
    const feature: Feature = {
      ...g.deployed,
      status: verdict.nonRetriable ? 'FailedNonRetriable' : 'Failed',
      failureReason: HEALTH_FAILED,
      failureMessage: verdict.message,
      consecutiveFailures: repeated(HEALTH_FAILED, verdict.message) ? (g.previous?.consecutiveFailures ?? 1) : (g.previous?.failureReason === HEALTH_FAILED ? (g.previous.consecutiveFailures ?? 0) : 0) + 1,
    };
    return { feature, event: repeated(HEALTH_FAILED, verdict.message) ? undefined : { type: 'Warning', reason: HEALTH_FAILED, message: `${g.featureID}: ${verdict.message}` } };
  }

  /**
   * preDeploy runs a feature's preDeployChecks before it deploys: undefined when they pass (or there are none),
   * else the feature entry that holds the deployment back (Provisioning while a check is not satisfied, Failed when
   * one cannot run) and the Event to record when its message is new.
   */
  async preDeploy(g: Omit<GateInput, 'deployed'> & { hash: string | undefined }): Promise<GateOutcome | undefined> {
    const checks = (g.spec.preDeployChecks ?? []).filter((c) => c.featureID === g.featureID);
    const user = `${g.summary}#pre-${g.featureID}`;
    if (checks.length === 0) {
      this.release(user);
      return undefined;
    }
    const v = await this.check(user, g.cluster, checks);
    if (v.state === 'healthy') return undefined;
    const reason = v.state === 'unhealthy' ? PRE_DEPLOY_PENDING : PRE_DEPLOY_FAILED;
    const message = v.message.replace(/^validateHealths /, 'preDeployChecks ');
    const repeated = g.previous?.failureReason === reason && g.previous.failureMessage === message;
    const status = v.state === 'unhealthy' ? 'Provisioning' : v.nonRetriable ? 'FailedNonRetriable' : 'Failed';
    const feature: Feature = { featureID: g.featureID, status, failureReason: reason, failureMessage: message, hash: g.hash, lastAppliedTime: g.previous?.lastAppliedTime, deployedGroupVersionKind: g.previous?.deployedGroupVersionKind };
    const event = repeated ? undefined : { type: v.state === 'unhealthy' ? ('Normal' as const) : ('Warning' as const), reason: v.state === 'unhealthy' ? 'WaitingForPreDeployChecks' : PRE_DEPLOY_FAILED, message: `${g.featureID}: ${message}; nothing deployed until it passes` };
    return { feature, event };
  }

  /**
   * check evaluates checks for one user, holding watches on what they select while the verdict may change by itself
   * (unhealthy, or a script failing on an object's content) and releasing them otherwise.
   */
  async check(user: string, cluster: string, checks: readonly ValidateHealth[]): Promise<HealthVerdict> {
    let verdict: HealthVerdict;
    try {
      verdict = await this.evaluate(user, cluster, checks);
    } catch (err) {
      verdict = { state: 'error', check: '', message: `validateHealths: cluster ${cluster}: ${errorMessage(err)}`, nonRetriable: false };
    }
    if (verdict.state === 'healthy' || (verdict.state === 'error' && verdict.nonRetriable)) this.release(user);
    return verdict;
  }

  /** evaluate watches each check's kind (before reading, so no change is missed), lists it and runs the checks. */
  private async evaluate(user: string, cluster: string, checks: readonly ValidateHealth[]): Promise<HealthVerdict> {
    const keys = new Set<string>();
    for (const c of checks) if (!problemOf(c)) keys.add(watchKey(cluster, checkApiVersion(c), c.kind!, c.namespace));
    await this.hold(user, keys);
    const client = await this.registry.client(cluster);
    const lua = checks.some((c) => c.script?.trim()) ? await this.lua.get() : undefined;
    const verdicts: HealthVerdict[] = [];
    for (const c of checks) {
      if (problemOf(c)) {
        verdicts.push(evaluateCheck(c, [], lua));
        continue;
      }
      const listed = await listFor(client, c);
      if (!listed.ok) {
        verdicts.push({ state: 'unhealthy', check: c.name, message: `validateHealths ${c.name}: ${listed.message}` });
        continue;
      }
      verdicts.push(evaluateCheck(c, selectObjects(c, listed.items), lua));
    }
    return combine(verdicts);
  }

  /** hold makes `user` hold exactly the given watches. */
  private async hold(user: string, keys: Set<string>): Promise<void> {
    const prev = this.held.get(user) ?? new Set<string>();
    for (const k of prev) if (!keys.has(k)) this.unwatch(k, user);
    this.held.set(user, keys);
    await Promise.all([...keys].map((k) => this.watch(k, user)));
  }

  /** release drops a feature's watches (healthy, failed for good, or gone). */
  release(user: string): void {
    for (const k of this.held.get(user) ?? []) this.unwatch(k, user);
    this.held.delete(user);
  }

  /** forget drops every watch of a ClusterSummary. */
  forget(summary: string): void {
    for (const u of [...this.held.keys()]) if (u.startsWith(`${summary}#`)) this.release(u);
  }

  /** dropCluster forgets the watches of a cluster whose client changed; returns the summaries to re-queue. */
  dropCluster(cluster: string): string[] {
    const affected = new Set<string>();
    for (const [k, w] of this.watches) {
      if (!k.startsWith(`${cluster}|`)) continue;
      for (const u of w.users) affected.add(u.slice(0, u.lastIndexOf('#')));
      this.watches.delete(k);
      void w.sub?.unsubscribe();
    }
    return [...affected];
  }

  /** watching lists the watch keys in use (tests and diagnostics). */
  watching(): string[] {
    return [...this.watches.keys()];
  }

  private async watch(k: string, user: string): Promise<void> {
    let w = this.watches.get(k);
    if (w) {
      w.users.add(user);
      await w.pending;
      return;
    }
    const cur: Watch = { sub: undefined, pending: undefined, users: new Set([user]) };
    this.watches.set(k, cur);
    cur.pending = (async () => {
      const [cluster, apiVersion, kind, namespace] = k.split('|');
      let factory: InformerFactory;
      try {
        factory = await this.registry.informers(cluster);
      } catch (err) {
        this.log.warn({ cluster, err: errorMessage(err) }, 'health checks cannot watch cluster');
        this.watches.delete(k);
        return;
      }
      if (this.stopped || this.watches.get(k) !== cur) return;
      const sub = factory.subscribe<KubeObject>({ apiVersion, kind, ...(namespace ? { namespace } : {}) }, {
        onAdd: () => this.changed(cur),
        onUpdate: () => this.changed(cur),
        onDelete: () => this.changed(cur),
      });
      cur.sub = sub;
      // The initial list is not a change: wait for it so the checks read after it (and get every later event).
      await sub.informer.waitForSync({ timeoutMs: 2000 }).catch(() => undefined);
    })();
    await cur.pending;
  }

  private changed(w: Watch): void {
    // Events replayed by the initial list are not changes (the checks read after it).
    if (!w.sub || (!w.sub.informer.hasSynced() && w.sub.informer.state !== 'waiting-for-kind')) return;
    for (const u of w.users) this.enqueue(u.slice(0, u.lastIndexOf('#')));
  }

  private unwatch(k: string, user: string): void {
    const w = this.watches.get(k);
    if (!w) return;
    w.users.delete(user);
    if (w.users.size > 0) return;
    this.watches.delete(k);
    void w.sub?.unsubscribe();
  }

  /** stop ends every watch. */
  async stop(): Promise<void> {
    this.stopped = true;
    const all = [...this.watches.values()];
    this.watches.clear();
    this.held.clear();
    await Promise.all(
      all.map(async (w) => {
        await w.pending;
        await w.sub?.unsubscribe();
      }),
    );
  }
}

function watchKey(cluster: string, apiVersion: string, kind: string, namespace: string | undefined): string {
  return `${cluster}|${apiVersion}|${kind}|${namespace ?? ''}`;
}

/** listFor lists a check's kind (in its namespace) in the managed cluster; a kind not served is "not yet". */
async function listFor(client: KubeClient, c: ValidateHealth): Promise<{ ok: true; items: KubeObject[] } | { ok: false; message: string }> {
  const apiVersion = checkApiVersion(c);
  try {
    const list = await client.list<KubeObject>({ apiVersion, kind: c.kind! }, c.namespace ? { namespace: c.namespace } : {});
    return { ok: true, items: list.items.map((o) => ({ ...o, apiVersion: o.apiVersion ?? apiVersion, kind: o.kind ?? c.kind! })) };
  } catch (err) {
    if (isKindNotInstalled(err) || isNotFound(err)) return { ok: false, message: `the cluster does not serve ${apiVersion} ${c.kind} (yet)` };
    throw err;
  }
}
