// Leader election through a coordination.k8s.io/v1 Lease, client-go style: candidates try to acquire the Lease every
// retry period; the holder renews it and steps down if it cannot renew within the renew deadline; a Lease held by
// someone else counts as expired only after leaseDuration has passed on OUR clock since we last saw it change (no
// trust in other machines' clocks). Writes use optimistic concurrency (resourceVersion), so two candidates never
// both win. Go: client-go tools/leaderelection (leaderelection.go tryAcquireOrRenew, resourcelock/leaselock.go)
import { silentLogger, type Logger } from '../obs/index.js';
import { sleep } from './backoff.js';
import type { KubeClient, KubeObject } from './client.js';
import { errorMessage, isAlreadyExists, isConflict, isNotFound } from './errors.js';

/** LeaderElectorOptions configures a LeaderElector. */
export interface LeaderElectorOptions {
  /** Namespace and name of the Lease. */
  namespace: string;
  name: string;
  /** This candidate's identity (unique per replica, e.g. pod name + random suffix). */
  identity: string;
  /** How long a Lease is valid after its last renewal (default 15 s; whole seconds are written). */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before stepping down (default 10 s; must be < leaseDurationMs). */
  renewDeadlineMs?: number;
  /** Time between tries (default 2 s). */
  retryPeriodMs?: number;
  /** Give the Lease up on stop() so another replica takes over at once (default true). */
  releaseOnStop?: boolean;
  /** Called when this candidate becomes leader; signal aborts when leadership ends. */
  onStartedLeading?: (signal: AbortSignal) => void;
  /** Called when this candidate stops being leader (lost the Lease or stopped). */
  onStoppedLeading?: () => void;
  /** Called when the observed leader changes (including to ourselves). */
  onNewLeader?: (identity: string) => void;
  logger?: Logger;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

type Lease = KubeObject & { spec?: LeaseSpec };

/** microTime renders a metav1.MicroTime (RFC 3339 with microseconds). */
function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** LeaderElector campaigns for a Lease until stopped; see the file comment. */
export class LeaderElector {
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly log: Logger;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private leading = false;
  private leadAbort: AbortController | undefined;
  private observedRecord = '';
  private observedAt = 0;
  private observedHolder = '';
  private lease: Lease | undefined;
  private lastRenewAt = 0;
  private observedValidMs = Number.POSITIVE_INFINITY;
  private fenceTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: KubeClient,
    private readonly options: LeaderElectorOptions,
  ) {
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (this.renewDeadlineMs >= this.leaseDurationMs) throw new Error('leader election: renewDeadlineMs must be less than leaseDurationMs');
    if (!options.identity) throw new Error('leader election: identity is required');
    this.log = (options.logger ?? silentLogger()).child({ lease: `${options.namespace}/${options.name}`, identity: options.identity });
  }

  /** isLeader reports whether this candidate holds the Lease right now. */
  isLeader(): boolean {
    return this.leading;
  }

  /**
   * holdsLease reports, by this process' clock alone, whether it may still write as the leader: it leads and its last
   * successful renewal was sent less than renewDeadline ago. Unlike isLeader it does not wait for the fence timer to
   * fire — a process resumed after a pause sees false at once, before any queued write is sent (use it as a
   * KubeClient writeGuard).
   */
  holdsLease(): boolean {
    return this.leading && Date.now() - this.lastRenewAt < this.renewDeadlineMs;
  }

  /** leader is the identity of the last observed holder ('' when none). */
  get leader(): string {
    return this.observedHolder;
  }

  /** start begins campaigning (idempotent). */
  start(): void {
    this.loop ??= this.run().catch((err) => this.log.error({ err: errorMessage(err) }, 'leader election loop crashed'));
  }

  /** stop ends the campaign; a leader steps down and (by default) releases the Lease. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    if (this.leading) {
      this.stepDown();
      if (this.options.releaseOnStop ?? true) await this.release();
    }
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      // Acquire: try every retry period (with a little jitter, like client-go's JitterUntil with factor 1.2).
      let attemptAt = Date.now();
      while (!signal.aborted) {
        attemptAt = Date.now();
        if (await this.tryAcquireOrRenew(this.renewDeadlineMs)) break;
        // Poll every retry period, but try again right when the observed Lease expires: a standby then takes over
        // within leaseDuration of the holder's last renewal plus the lag of its own observation (≤ a retry period).
        const untilExpiry = this.observedAt + this.observedValidMs - Date.now();
        const next = this.retryPeriodMs * (1 + 0.2 * Math.random());
        await sleep(untilExpiry >= 0 && untilExpiry < next ? untilExpiry + 1 : next, signal);
      }
      if (signal.aborted) return;
      this.leading = true;
      this.leadAbort = new AbortController();
      // The fence counts from when the winning request was SENT: the server may have stored it at any time after, so
      // another candidate's clock for our Lease starts no earlier than this.
      this.armFence(attemptAt);
      this.log.info('became leader');
      this.options.onStartedLeading?.(this.leadAbort.signal);
      // Renew every retry period; the fence timer steps down once renewDeadline has passed without a renewal, even
      // while a renewal request hangs.
      while (!signal.aborted && this.leading) {
        await sleep(this.retryPeriodMs, signal);
        if (signal.aborted || !this.leading) break;
        const sentAt = Date.now();
        const left = this.lastRenewAt + this.renewDeadlineMs - sentAt;
        if (left <= 0) break;
        const renewed = await this.tryAcquireOrRenew(left);
        if (!this.leading) break; // fenced while the request was in flight: its outcome no longer counts
        if (renewed) {
          this.armFence(sentAt);
          continue;
        }
        if (this.observedHolder !== this.options.identity) {
          this.log.warn({ holder: this.observedHolder }, 'lost leadership: the Lease has another holder');
          this.stepDown();
        }
      }
      if (signal.aborted) return;
      this.stepDown();
    }
  }

  /** armFence (re)starts the renew-deadline timer from a successful renewal sent at sentAt. */
  private armFence(sentAt: number): void {
    this.lastRenewAt = sentAt;
    clearTimeout(this.fenceTimer);
    this.fenceTimer = setTimeout(
      () => {
        if (!this.leading) return;
        this.log.warn({ renewDeadlineMs: this.renewDeadlineMs }, 'lost leadership: could not renew the Lease within the renew deadline');
        this.stepDown();
      },
      Math.max(0, sentAt + this.renewDeadlineMs - Date.now()),
    );
  }

  private stepDown(): void {
    clearTimeout(this.fenceTimer);
    if (!this.leading) return;
    this.leading = false;
    this.leadAbort?.abort();
    this.options.onStoppedLeading?.();
  }

  private observe(spec: LeaseSpec | undefined): void {
    const record = JSON.stringify(spec ?? {});
    if (record !== this.observedRecord) {
      this.observedRecord = record;
      this.observedAt = Date.now();
    }
    const holder = spec?.holderIdentity ?? '';
    if (holder !== this.observedHolder) {
      this.observedHolder = holder;
      if (holder) this.options.onNewLeader?.(holder);
    }
  }

  /** tryAcquireOrRenew makes one attempt; true when we hold the Lease afterwards. Go: leaderelection.go */
  private async tryAcquireOrRenew(timeoutMs: number): Promise<boolean> {
    const me = this.options.identity;
    const now = new Date();
    const ref = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: this.options.namespace, name: this.options.name };
    const durationSeconds = Math.max(1, Math.ceil(this.leaseDurationMs / 1000));
    try {
      const lease = await this.client.getIfExists<Lease>(ref, { signal: AbortSignal.timeout(timeoutMs) });
      if (!lease) {
        const created = await this.client.create<Lease>(
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name: this.options.name, namespace: this.options.namespace },
            spec: { holderIdentity: me, leaseDurationSeconds: durationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
          },
          { signal: AbortSignal.timeout(timeoutMs) },
        );
        this.lease = created;
        this.observe(created.spec);
        return true;
      }
      this.observe(lease.spec);
      const spec = lease.spec ?? {};
      const holder = spec.holderIdentity ?? '';
      const validMs = (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
      this.observedValidMs = holder === '' ? 0 : validMs;
      if (holder !== '' && holder !== me && this.observedAt + validMs > Date.now()) return false;
      const next: LeaseSpec = {
        holderIdentity: me,
        leaseDurationSeconds: durationSeconds,
        acquireTime: holder === me && spec.acquireTime ? spec.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: holder === me ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
      };
      const updated = await this.client.update<Lease>({ ...lease, spec: next }, { signal: AbortSignal.timeout(timeoutMs) });
      this.lease = updated;
      this.observe(updated.spec);
      return true;
    } catch (err) {
      if (isConflict(err) || isAlreadyExists(err)) return false;
      this.log.debug({ err: errorMessage(err) }, 'lease acquire/renew failed');
      return false;
    }
  }

  /** release gives up the Lease (holder cleared, 1 s duration) so others can take over at once. */
  private async release(): Promise<void> {
    const lease = this.lease;
    if (!lease || lease.spec?.holderIdentity !== this.options.identity) return;
    try {
      const now = microTime(new Date());
      await this.client.update({ ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now } });
    } catch (err) {
      if (!isConflict(err) && !isNotFound(err)) this.log.warn({ err: errorMessage(err) }, 'releasing the lease failed');
    }
  }
}
