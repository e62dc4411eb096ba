// Leader election between two electors on the embedded API server: one leader at a time, release hands over at
// once, an abandoned Lease is taken over after it expires, callbacks fire.
import { strict as assert } from 'node:assert';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../test/support/eventually.js';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import { KubeConfig } from '@kubernetes/client-node';
import { FencedError, KubeClient, LeaderElector, type KubeObject, type LeaderElectorOptions } from './index.js';

type Lease = KubeObject & { spec: { holderIdentity?: string; leaseTransitions?: number; leaseDurationSeconds?: number } };

describe('LeaderElector', () => {
  let api: TestApiServer;
  let client: KubeClient;
  before(async () => {
    api = await startTestApiServer();
    client = new KubeClient(await api.kubeConfig());
  });
  after(async () => {
    client.close();
    await api.stop();
  });

  function elector(identity: string, name: string, log: string[], extra: Partial<LeaderElectorOptions> = {}): LeaderElector {
    return new LeaderElector(client, {
      namespace: 'default',
      name,
      identity,
      leaseDurationMs: 1000,
      renewDeadlineMs: 600,
      retryPeriodMs: 100,
      onStartedLeading: () => log.push(`${identity}:start`),
      onStoppedLeading: () => log.push(`${identity}:stop`),
      ...extra,
    });
  }

  test('one leader at a time; releasing hands over at once', async () => {
    const log: string[] = [];
    const a = elector('a', 'ha', log);
    const b = elector('b', 'ha', log);
    a.start();
    await eventually(() => a.isLeader(), Boolean, { message: 'a leads' });
    b.start();
    // b keeps trying while a renews: for several lease durations b never leads.
    for (let i = 0; i < 15; i++) {
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(b.isLeader(), false);
      assert.equal(a.isLeader(), true);
    }
    assert.equal(b.leader, 'a');
    const lease = await client.get<Lease>({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'default', name: 'ha' });
    assert.equal(lease.spec.holderIdentity, 'a');
    assert.equal(lease.spec.leaseDurationSeconds, 1);
    await a.stop();
    assert.equal(a.isLeader(), false);
    await eventually(() => b.isLeader(), Boolean, { message: 'b takes over after release' });
    await b.stop();
    assert.deepEqual(log, ['a:start', 'a:stop', 'b:start', 'b:stop']);
    const after = await client.get<Lease>({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'default', name: 'ha' });
    assert.equal(after.spec.holderIdentity, '', 'released');
    assert.equal(after.spec.leaseTransitions, 1);
  });

  test('a Lease abandoned without release is taken over once it expires', async () => {
    const log: string[] = [];
    const a = elector('a', 'crash', log, { releaseOnStop: false });
    const b = elector('b', 'crash', log);
    a.start();
    await eventually(() => a.isLeader(), Boolean, { message: 'a leads' });
    // a "crashes": it stops renewing and does not release.
    await a.stop();
    b.start();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(b.isLeader(), false, 'the lease is still valid right after a stopped');
    await eventually(() => b.isLeader(), Boolean, { message: 'b takes over after expiry', timeoutMs: 5000 });
    const lease = await client.get<Lease>({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'default', name: 'crash' });
    assert.equal(lease.spec.holderIdentity, 'b');
    await b.stop();
    assert.deepEqual(log, ['a:start', 'a:stop', 'b:start', 'b:stop']);
  });

  test('a leader that loses its Lease steps down and its signal aborts', async () => {
    let aborted = false;
    const a = new LeaderElector(client, {
      namespace: 'default',
      name: 'stolen',
      identity: 'a',
      leaseDurationMs: 1000,
      renewDeadlineMs: 600,
      retryPeriodMs: 100,
      onStartedLeading: (s) => s.addEventListener('abort', () => (aborted = true)),
    });
    a.start();
    await eventually(() => a.isLeader(), Boolean, { message: 'a leads' });
    const ref = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'default', name: 'stolen' };
    // Someone else takes the Lease over (e.g. after a long pause of a): a must notice and step down.
    await client.patch(ref, 'merge', { spec: { holderIdentity: 'intruder', leaseDurationSeconds: 30 } });
    await eventually(() => !a.isLeader(), Boolean, { message: 'a steps down' });
    assert.equal(aborted, true);
    assert.equal(a.leader, 'intruder');
    await a.stop();
    const lease = await client.get<Lease>(ref);
    assert.equal(lease.spec.holderIdentity, 'intruder', 'a non-leader never releases someone else’s lease');
  });

  test('fencing: a leader cut off from the API server steps down before a standby can take the Lease over', async () => {
    // The leader reaches the API server through a TCP proxy we can freeze: a network partition (or a paused process)
    // with its requests hanging rather than failing fast.
    const target = new URL(client.server);
    const proxy = await freezableProxy(target.hostname, Number(target.port));
    const kc = await api.kubeConfig();
    const viaProxy = new KubeClient(withServer(kc, `https://127.0.0.1:${proxy.port}${target.pathname.replace(/\/$/, '')}`), { name: 'via-proxy' });
    const log: string[] = [];
    // A renewal hanging from a's retry period on would, without the fence timer, be noticed only at retryPeriod +
    // renewDeadline (2.2 s) > leaseDuration (2 s): after b, polling every 50 ms, may already have acquired.
    const opts = { namespace: 'default', name: 'fenced', leaseDurationMs: 2000, renewDeadlineMs: 1500 };
    const a = new LeaderElector(viaProxy, { ...opts, retryPeriodMs: 700, identity: 'a', onStartedLeading: () => log.push('a:start'), onStoppedLeading: () => log.push('a:stop') });
    const b = new LeaderElector(client, { ...opts, retryPeriodMs: 50, identity: 'b', onStartedLeading: () => log.push('b:start'), onStoppedLeading: () => log.push('b:stop') });
    try {
      a.start();
      await eventually(() => a.isLeader(), Boolean, { message: 'a leads' });
      b.start();
      await eventually(() => b.leader, (h) => h === 'a', { message: 'b sees a' });
      proxy.freeze();
      await eventually(() => b.isLeader(), Boolean, { message: 'b takes over once the Lease expired', timeoutMs: 10_000 });
      // a stepped down on its own (renew deadline) strictly before b acquired: never two leaders at once.
      assert.deepEqual(log, ['a:start', 'a:stop', 'b:start']);
      assert.equal(a.isLeader(), false);
    } finally {
      await b.stop();
      proxy.close();
      await a.stop();
      viaProxy.close();
    }
  });

  test('fencing by clock: a paused leader refuses writes the moment it resumes, before its timers run', async () => {
    const a = elector('a', 'paused', []);
    a.start();
    await eventually(() => a.isLeader(), Boolean, { message: 'a leads' });
    const guarded = new KubeClient(await api.kubeConfig(), {
      name: 'guarded',
      writeGuard: () => {
        if (!a.holdsLease()) throw new FencedError('not the leader');
      },
    });
    const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });
    try {
      await guarded.create(cm('while-leading'));
      // The process "pauses" (GC, SIGSTOP, an overloaded node) for longer than the renew deadline: no timer ran.
      const until = Date.now() + 700;
      while (Date.now() < until) {
        /* busy: the event loop is blocked */
      }
      assert.equal(a.isLeader(), true, 'the fence timer has not fired yet');
      assert.equal(a.holdsLease(), false, 'but by the clock the Lease may be gone');
      await assert.rejects(guarded.create(cm('after-pause')), FencedError);
      assert.equal(await client.getIfExists({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'after-pause' }), undefined, 'nothing was sent');
      assert.ok(await client.getIfExists({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'while-leading' }));
      // Reads are never fenced.
      assert.ok(await guarded.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'while-leading' }));
    } finally {
      guarded.close();
      await a.stop();
    }
  });

  test('bad options are rejected', () => {
    assert.throws(() => new LeaderElector(client, { namespace: 'default', name: 'x', identity: 'a', leaseDurationMs: 1000, renewDeadlineMs: 1000 }), /renewDeadlineMs/);
    assert.throws(() => new LeaderElector(client, { namespace: 'default', name: 'x', identity: '' }), /identity/);
  });
});

/** withServer copies a KubeConfig with its current cluster's server replaced. */
function withServer(kc: KubeConfig, server: string): KubeConfig {
  const out = new KubeConfig();
  out.loadFromOptions({
    clusters: kc.clusters.map((c) => (c.name === kc.getCurrentCluster()?.name ? { ...c, server } : c)),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return out;
}

/** freezableProxy forwards TCP to host:port until freeze(), after which every byte in either direction is held. */
async function freezableProxy(host: string, port: number): Promise<{ port: number; freeze(): void; close(): void }> {
  let frozen = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((down) => {
    const up = connect(port, host);
    sockets.add(down).add(up);
    const relay = (from: Socket, to: Socket) => from.on('data', (d) => void (frozen || to.write(d)));
    relay(down, up);
    relay(up, down);
    const end = () => {
      down.destroy();
      up.destroy();
    };
    down.on('error', end).on('close', end);
    up.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : 0,
    freeze: () => void (frozen = true),
    close: () => {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}
