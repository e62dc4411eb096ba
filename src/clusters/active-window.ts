// active-window: SveltosCluster.spec.activeWindow {from, to} — two cron schedules; `from` un-pauses the cluster and
// `to` pauses it (a paused cluster receives no update from Sveltos). As sveltoscluster-manager does, the controller
// writes the state into spec.paused (what every add-on controller already honours: ClusterSummaries of a paused
// cluster are left alone, nothing is withdrawn) and status.nextPause / status.nextUnpause / status.activeWindowHash,
// and wakes up with a one-shot timer at the next transition — no polling. Whether the cluster is inside the window
// now is decided by which comes first: the next `to` (inside: the next thing to happen is a pause) or the next
// `from` (outside). A schedule that does not parse leaves spec.paused alone and is reported (status + Event).
import { createHash } from 'node:crypto';
import {
  Controller,
  splitKey,
  type EventRecorder,
  type InformerFactory,
  type KubeObject,
  type ReconcileResult,
  type Subscription,
} from '../kube/index.js';
import { silentLogger, type Logger } from '../obs/index.js';
import { SVELTOS_CLUSTER } from './cluster.js';
import { parseCron } from './cron.js';
import type { ClusterRegistry } from './registry.js';

/** ActiveWindow is spec.activeWindow. */
export interface ActiveWindow {
  from: string;
  to: string;
}

/** WindowPlan is what the active window means at one instant. */
export type WindowPlan =
  | { ok: true; paused: boolean; nextPause: string; nextUnpause: string; hash: string; wakeAt: number }
  | { ok: false; message: string; hash: string };

/** activeWindowHash is status.activeWindowHash: sha256 of the window, base64 (a []byte in Go). */
export function activeWindowHash(w: ActiveWindow): string {
  return createHash('sha256').update(`${w.from}\n${w.to}`).digest('base64');
}

/** planActiveWindow computes paused / nextPause / nextUnpause for `now` (pure apart from hashing). */
export function planActiveWindow(w: ActiveWindow, now: Date): WindowPlan {
  const hash = activeWindowHash(w);
  const from = parseCron(w.from ?? '');
  if (!from.ok) return { ok: false, message: `spec.activeWindow.from ${JSON.stringify(w.from)}: ${from.message}`, hash };
  const to = parseCron(w.to ?? '');
  if (!to.ok) return { ok: false, message: `spec.activeWindow.to ${JSON.stringify(w.to)}: ${to.message}`, hash };
  const unpause = from.schedule.next(now);
  const pause = to.schedule.next(now);
  if (!unpause || !pause) return { ok: false, message: `spec.activeWindow: ${!unpause ? 'from' : 'to'} never fires within 5 years`, hash };
  // Inside the window the next event is a pause; the same minute for both counts as outside (to wins, as a pause).
  const paused = unpause.getTime() < pause.getTime() || unpause.getTime() === pause.getTime();
  return {
    ok: true,
    paused,
    nextPause: iso(pause),
    nextUnpause: iso(unpause),
    hash,
    wakeAt: Math.min(pause.getTime(), unpause.getTime()),
  };
}

function iso(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

type SC = KubeObject & {
  spec?: { activeWindow?: ActiveWindow; paused?: boolean };
  status?: { nextPause?: string; nextUnpause?: string; activeWindowHash?: string; failureMessage?: string };
};

/** ActiveWindowControllerOptions configures the controller. */
export interface ActiveWindowControllerOptions {
  registry: ClusterRegistry;
  informers: InformerFactory;
  recorder?: EventRecorder;
  logger?: Logger;
  /** Clock (tests). */
  now?: () => Date;
}

// Timers longer than this are re-armed (setTimeout's 32-bit limit).
const MAX_TIMER_MS = 2 ** 31 - 1;

/** ActiveWindowController pauses and un-pauses SveltosClusters on their activeWindow; see the file comment. */
export class ActiveWindowController {
  private readonly controller: Controller;
  private sub: Subscription<SC> | undefined;
  private readonly log: Logger;
  private readonly reported = new Map<string, string>();

  constructor(private readonly options: ActiveWindowControllerOptions) {
    this.log = (options.logger ?? silentLogger()).child({ component: 'cluster-active-window' });
    this.controller = new Controller({
      name: 'sveltoscluster-activewindow',
      workers: 2,
      logger: options.logger,
      reconcile: (key) => this.reconcile(key),
    });
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

  private async reconcile(key: string): Promise<ReconcileResult | void> {
    const { namespace, name } = splitKey(key);
    const obj = this.sub?.informer.cache.get(namespace, name);
    if (!obj || obj.metadata.deletionTimestamp) {
      this.reported.delete(key);
      return;
    }
    const window = obj.spec?.activeWindow;
    const mgmt = this.options.registry.mgmt;
    const ref = { ...SVELTOS_CLUSTER, namespace, name };
    if (!window) {
      this.reported.delete(key);
      // The window was removed: forget the schedule (spec.paused stays as it is, now the user's).
      if (obj.status?.nextPause || obj.status?.nextUnpause || obj.status?.activeWindowHash) {
        await mgmt.patch(ref, 'merge', { status: { nextPause: null, nextUnpause: null, activeWindowHash: null } }, { subresource: 'status' });
      }
      return;
    }
    // Sharding: only the shard that owns the cluster acts on it.
    if (this.options.registry.inOtherShard(`Sveltos:${namespace}/${name}`)) return;
    const now = (this.options.now ?? (() => new Date()))();
    const plan = planActiveWindow(window, now);
    if (!plan.ok) {
      if (this.reported.get(key) !== plan.message) {
        this.reported.set(key, plan.message);
        this.log.warn({ cluster: key, err: plan.message }, 'activeWindow is invalid; spec.paused left as it is');
        this.options.recorder?.event(obj, 'Warning', 'InvalidActiveWindow', `${plan.message}; the cluster is not paused or un-paused automatically until it is fixed`);
        await mgmt.patch(ref, 'merge', { status: { failureMessage: plan.message, nextPause: null, nextUnpause: null, activeWindowHash: plan.hash } }, { subresource: 'status' });
      }
      return;
    }
    const wasInvalid = this.reported.delete(key);
    if (obj.spec?.paused !== plan.paused) {
      await mgmt.patch(ref, 'merge', { spec: { paused: plan.paused } });
      this.options.recorder?.event(
        obj,
        'Normal',
        plan.paused ? 'ClusterPaused' : 'ClusterUnpaused',
        plan.paused ? `outside activeWindow: no updates until ${plan.nextUnpause} (from: ${window.from})` : `inside activeWindow until ${plan.nextPause} (to: ${window.to})`,
      );
      this.log.info({ cluster: key, paused: plan.paused, nextPause: plan.nextPause, nextUnpause: plan.nextUnpause }, plan.paused ? 'cluster paused (outside activeWindow)' : 'cluster un-paused (inside activeWindow)');
    }
    const st = obj.status ?? {};
    if (st.nextPause !== plan.nextPause || st.nextUnpause !== plan.nextUnpause || st.activeWindowHash !== plan.hash || wasInvalid) {
      const status: Record<string, unknown> = { nextPause: plan.nextPause, nextUnpause: plan.nextUnpause, activeWindowHash: plan.hash };
      if (wasInvalid && st.failureMessage?.startsWith('spec.activeWindow')) status.failureMessage = null;
      await mgmt.patch(ref, 'merge', { status }, { subresource: 'status' });
    }
    // One-shot wake-up at the next transition (plus a second, so the cron minute has begun).
    return { requeueAfter: Math.min(MAX_TIMER_MS, Math.max(1000, plan.wakeAt - now.getTime() + 1000)) };
  }
}
