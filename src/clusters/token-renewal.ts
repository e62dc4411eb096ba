// token-renewal: SveltosCluster.spec.tokenRequestRenewalOption (Go: sveltoscluster-manager handleTokenRequestRenewal).
// Every renewTokenRequestInterval (counted from status.lastReconciledTokenRequestAt, or from the cluster's creation)
// the controller asks the managed cluster for a new ServiceAccount token through the TokenRequest API
// (POST .../serviceaccounts/<saName>/token, expirationSeconds = tokenDuration or, unset, the interval), using the
// cluster's current kubeconfig; the ServiceAccount is saNamespace/saName, or — unset — the one the current
// kubeconfig's token belongs to (its JWT subject system:serviceaccount:<ns>:<name>). The new kubeconfig (same server
// and CA, the new token) goes into the kubeconfig Secret under option.kubeconfigKeyName, or "re-kubeconfig" with
// spec.kubeconfigKeyName switched to it; status.lastReconciledTokenRequestAt records the time. Works for the
// management cluster's own SveltosCluster too (mgmt/mgmt). One one-shot timer per cluster for the next renewal, no
// polling; failures: Event TokenRenewalFailed + status.failureMessage (through the readiness controller, which owns
// that field), retried with backoff, isolated per cluster.
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import {
  Backoff,
  Controller,
  errorMessage,
  splitKey,
  type EventRecorder,
  type InformerFactory,
  type KubeObject,
  type ReconcileResult,
  type Subscription,
} from '../kube/index.js';
import { silentLogger, type Logger } from '../obs/index.js';
import { SVELTOS_CLUSTER, kubeconfigFromSecret, kubeconfigLocation } from './cluster.js';
import type { ClusterRegistry } from './registry.js';

/** RENEWED_KUBECONFIG_KEY is where Sveltos writes the renewed kubeconfig when no key is configured. */
export const RENEWED_KUBECONFIG_KEY = 're-kubeconfig';

/** TokenRequestRenewalOption is spec.tokenRequestRenewalOption. */
export interface TokenRequestRenewalOption {
  renewTokenRequestInterval: string;
  tokenDuration?: string;
  saName?: string;
  saNamespace?: string;
  kubeconfigKeyName?: string;
}

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** parseGoDuration parses Go's time.ParseDuration syntax ("1h", "90m", "1h30m", "2.5s") into milliseconds. */
export function parseGoDuration(text: string): { ok: true; ms: number } | { ok: false; message: string } {
  const s = text.trim();
  if (s === '0') return { ok: true, ms: 0 };
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gy;
  let ms = 0;
  let pos = 0;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    sign = s.startsWith('-') ? -1 : 1;
    pos = 1;
  }
  if (pos >= s.length) return { ok: false, message: `time: invalid duration ${JSON.stringify(text)}` };
  re.lastIndex = pos;
  while (pos < s.length) {
    const m = re.exec(s);
    if (!m || m.index !== pos) return { ok: false, message: `time: invalid duration ${JSON.stringify(text)}` };
    ms += Number(m[1]) * UNITS[m[2]!]!;
    pos = re.lastIndex;
  }
  return { ok: true, ms: sign * ms };
}

/** RenewalPlan is when the next renewal is due and what it asks for (pure). */
export type RenewalPlan = { ok: true; dueInMs: number; intervalMs: number; expirationSeconds: number } | { ok: false; message: string };

/** planRenewal decides when the token is due, from the last renewal (or creation) and the interval. */
export function planRenewal(opt: TokenRequestRenewalOption, lastRenewal: string | undefined, created: string | undefined, now: number): RenewalPlan {
  const interval = parseGoDuration(opt.renewTokenRequestInterval ?? '');
  if (!interval.ok) return { ok: false, message: `spec.tokenRequestRenewalOption.renewTokenRequestInterval: ${interval.message}` };
  if (interval.ms <= 0) return { ok: false, message: 'spec.tokenRequestRenewalOption.renewTokenRequestInterval must be positive' };
  let durationMs = interval.ms;
  if (opt.tokenDuration) {
    const d = parseGoDuration(opt.tokenDuration);
    if (!d.ok) return { ok: false, message: `spec.tokenRequestRenewalOption.tokenDuration: ${d.message}` };
    durationMs = d.ms;
  }
  const since = Date.parse(lastRenewal ?? '') || Date.parse(created ?? '') || now;
  return { ok: true, dueInMs: Math.max(0, since + interval.ms - now), intervalMs: interval.ms, expirationSeconds: Math.round(durationMs / 1000) };
}

interface KubeconfigDoc {
  'current-context'?: string;
  contexts?: { name: string; context?: { cluster?: string; user?: string; namespace?: string } }[];
  users?: { name: string; user?: Record<string, unknown> }[];
  clusters?: { name: string; cluster?: Record<string, unknown> }[];
}

/** currentUser returns the user entry of a kubeconfig's current context. */
function currentUser(doc: KubeconfigDoc): { name: string; user?: Record<string, unknown> } | undefined {
  const ctx = doc.contexts?.find((c) => c.name === doc['current-context']) ?? doc.contexts?.[0];
  return doc.users?.find((u) => u.name === ctx?.context?.user);
}

/** serviceAccountOfToken reads `system:serviceaccount:<ns>:<name>` from a ServiceAccount JWT (no verification). */
export function serviceAccountOfToken(token: string | undefined): { namespace: string; name: string } | undefined {
  const part = token?.split('.')[1];
  if (!part) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as { sub?: string };
    const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(claims.sub ?? '');
    return m ? { namespace: m[1]!, name: m[2]! } : undefined;
  } catch {
    return undefined;
  }
}

/** withToken returns the kubeconfig with its current user's credential replaced by the bearer token (pure). */
export function withToken(kubeconfig: string, token: string): string {
  const doc = parseYaml(kubeconfig) as KubeconfigDoc;
  const u = currentUser(doc);
  if (!u) throw new Error('the kubeconfig has no user for its current context');
  u.user = { token };
  return stringifyYaml(doc);
}

type SC = KubeObject & {
  spec?: { tokenRequestRenewalOption?: TokenRequestRenewalOption; pullMode?: boolean; kubeconfigKeyName?: string };
  status?: { lastReconciledTokenRequestAt?: string };
};

/** TokenRenewalControllerOptions configures the controller. */
export interface TokenRenewalControllerOptions {
  registry: ClusterRegistry;
  informers: InformerFactory;
  recorder?: EventRecorder;
  logger?: Logger;
  now?: () => number;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** TokenRenewalController renews cluster tokens through TokenRequest; see the file comment. */
export class TokenRenewalController {
  private readonly controller: Controller;
  private sub: Subscription<SC> | undefined;
  private readonly log: Logger;
  private readonly problems = new Map<string, string>();
  private readonly backoffs = new Map<string, Backoff>();

  constructor(private readonly options: TokenRenewalControllerOptions) {
    this.log = (options.logger ?? silentLogger()).child({ component: 'cluster-token-renewal' });
    this.controller = new Controller({ name: 'sveltoscluster-token-renewal', workers: 2, logger: options.logger, reconcile: (key) => this.reconcile(key) });
  }

  start(): void {
    if (this.sub) return;
    this.sub = this.options.informers.subscribe<SC>(SVELTOS_CLUSTER);
    this.controller.watch(this.sub.informer);
    this.controller.start();
  }

  async stop(): Promise<void> {
    await this.controller.stop();
    await this.sub?.unsubscribe();
    this.sub = undefined;
  }

  /** problem is the current renewal failure of a SveltosCluster (`namespace/name`), for status.failureMessage. */
  problem(namespace: string, name: string): string | undefined {
    return this.problems.get(`${namespace}/${name}`);
  }

  private fail(key: string, obj: SC, message: string): ReconcileResult {
    const first = this.problems.get(key) !== message;
    this.problems.set(key, message);
    if (first) this.options.recorder?.event(obj, 'Warning', 'TokenRenewalFailed', message);
    this.log.warn({ cluster: key, err: message }, 'token renewal failed');
    let b = this.backoffs.get(key);
    if (!b) this.backoffs.set(key, (b = new Backoff({ initialMs: 1000, maxMs: 5 * 60_000 })));
    return { requeueAfter: b.next() };
  }

  private async reconcile(key: string): Promise<ReconcileResult | void> {
    const { namespace, name } = splitKey(key);
    const obj = this.sub?.informer.cache.get(namespace, name);
    const opt = obj?.spec?.tokenRequestRenewalOption;
    if (!obj || obj.metadata.deletionTimestamp || !opt) {
      this.problems.delete(key);
      this.backoffs.delete(key);
      return;
    }
    if (this.options.registry.inOtherShard(`Sveltos:${key}`)) return;
    const now = (this.options.now ?? Date.now)();
    const plan = planRenewal(opt, obj.status?.lastReconciledTokenRequestAt, obj.metadata.creationTimestamp, now);
    // Spec problems wait for a spec change (the update re-queues us); no retry timer.
    if (!plan.ok) {
      this.fail(key, obj, plan.message);
      return;
    }
    if (obj.spec?.pullMode) {
      this.fail(key, obj, 'tokenRequestRenewalOption has no effect on a cluster in pull mode (the management cluster holds no kubeconfig for it)');
      return;
    }
    if (plan.dueInMs > 0) return { requeueAfter: Math.min(MAX_TIMER_MS, plan.dueInMs) };
    try {
      await this.renew(key, obj, opt, plan.expirationSeconds, now);
    } catch (err) {
      return this.fail(key, obj, `token renewal: ${errorMessage(err)}`);
    }
    this.backoffs.delete(key);
    if (this.problems.delete(key)) this.log.info({ cluster: key }, 'token renewal works again');
    return { requeueAfter: Math.min(MAX_TIMER_MS, plan.intervalMs) };
  }

  private async renew(key: string, obj: SC, opt: TokenRequestRenewalOption, expirationSeconds: number, now: number): Promise<void> {
    const mgmt = this.options.registry.mgmt;
    const entry = this.options.registry.get(`Sveltos:${key}`);
    if (!entry) throw new Error('the cluster is not known yet');
    const loc = kubeconfigLocation(entry);
    const secretRef = { apiVersion: 'v1', kind: 'Secret', namespace: loc.namespace, name: loc.secretName };
    const secret = await mgmt.getIfExists<KubeObject & { data?: Record<string, string> }>(secretRef);
    const current = kubeconfigFromSecret(secret, loc);
    if (!current.ok) throw new Error(current.message);
    const user = currentUser(parseYaml(current.kubeconfig) as KubeconfigDoc);
    let sa = opt.saName && opt.saNamespace ? { namespace: opt.saNamespace, name: opt.saName } : undefined;
    if (!sa) {
      const fromToken = serviceAccountOfToken(user?.user?.token as string | undefined);
      if (!fromToken) throw new Error('set saName and saNamespace: the current kubeconfig credential is not a ServiceAccount token, so the ServiceAccount cannot be deduced');
      sa = { namespace: opt.saNamespace || fromToken.namespace, name: opt.saName || fromToken.name };
    }
    const client = await this.options.registry.client(entry.key, { fresh: true });
    const tr = await client.request<{ status?: { token?: string; expirationTimestamp?: string } }>({
      method: 'POST',
      path: `/api/v1/namespaces/${encodeURIComponent(sa.namespace)}/serviceaccounts/${encodeURIComponent(sa.name)}/token`,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds } },
    });
    const token = tr.status?.token;
    if (!token) throw new Error(`TokenRequest for ServiceAccount ${sa.namespace}/${sa.name} returned no token`);
    const renewed = withToken(current.kubeconfig, token);
    const targetKey = opt.kubeconfigKeyName || RENEWED_KUBECONFIG_KEY;
    await mgmt.patch(secretRef, 'merge', { data: { [targetKey]: Buffer.from(renewed).toString('base64') } });
    const ref = { ...SVELTOS_CLUSTER, namespace: obj.metadata.namespace, name: obj.metadata.name };
    if (!opt.kubeconfigKeyName && obj.spec?.kubeconfigKeyName !== RENEWED_KUBECONFIG_KEY) {
      await mgmt.patch(ref, 'merge', { spec: { kubeconfigKeyName: RENEWED_KUBECONFIG_KEY } });
    }
    const at = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await mgmt.patch(ref, 'merge', { status: { lastReconciledTokenRequestAt: at } }, { subresource: 'status' });
    this.options.recorder?.event(obj, 'Normal', 'TokenRenewed', `token of ServiceAccount ${sa.namespace}/${sa.name} renewed (valid until ${tr.status?.expirationTimestamp ?? 'unknown'}); kubeconfig written to Secret ${loc.secretName} key ${targetKey}`);
    this.log.info({ cluster: key, serviceAccount: `${sa.namespace}/${sa.name}`, key: targetKey }, 'token renewed');
  }
}
