// Durability: `ripple apiserver` is killed with SIGKILL in the middle of a burst of concurrent writes; after a restart
// every acknowledged write is there and resourceVersions keep increasing.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';

const RIPPLE = resolve(import.meta.dirname, '..', '..', 'bin', 'ripple.js');
const dir = mkdtempSync(join(tmpdir(), 'ripple-durability-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function startRipple(): Promise<{ child: ChildProcess; base: string; token: string }> {
  const child = spawn(process.execPath, [RIPPLE, 'apiserver', '--data-dir', dir, '--cluster', 'd', '--log-level', 'error', '--plain-http'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  await new Promise<void>((ok, fail) => {
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('listening on')) ok();
    });
    child.once('exit', (code) => fail(new Error(`ripple apiserver exited with ${code}: ${err}`)));
  });
  const kc = parse(readFileSync(join(dir, 'kubeconfig'), 'utf8'));
  const server = String(kc.clusters.find((c: { name: string }) => c.name === 'd').cluster.server).replace('https://', 'http://');
  return { child, base: server, token: kc.users.find((u: { name: string }) => u.name === 'd').user.token };
}

function kill9(child: ChildProcess): Promise<void> {
  return new Promise((ok) => {
    child.once('exit', () => ok());
    child.kill('SIGKILL');
  });
}

test('no acknowledged write is lost to kill -9, and resourceVersions keep increasing', { timeout: 120_000 }, async () => {
  const first = await startRipple();
  const headers = { authorization: `Bearer ${first.token}`, 'content-type': 'application/json' };
  const url = `${first.base}/api/v1/namespaces/default/configmaps`;
  // Deletions acknowledged before the crash must stay deleted.
  for (const name of ['gone-1', 'gone-2']) {
    await fetch(url, { method: 'POST', headers, body: JSON.stringify({ metadata: { name }, data: { x: '1' } }) });
    const r = await fetch(`${url}/${name}`, { method: 'DELETE', headers });
    assert.equal(r.status, 200);
  }
  const acked = new Map<string, string>();
  let maxRv = 0;
  let next = 0;
  let killed = false;
  const killing = (async () => {
    while (acked.size < 300) await new Promise((r) => setTimeout(r, 2));
    killed = true;
    await kill9(first.child);
  })();
  // 32 writers in flight; the server dies under them.
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (!killed) {
        const name = `c-${next++}`;
        try {
          const r = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ metadata: { name }, data: { v: name } }) });
          if (r.status !== 201) continue;
          const body = (await r.json()) as { metadata: { resourceVersion: string } };
          acked.set(name, body.metadata.resourceVersion);
          maxRv = Math.max(maxRv, Number(body.metadata.resourceVersion));
        } catch {
          // The connection died with the server: this write was not acknowledged.
        }
      }
    }),
  );
  await killing;
  assert.ok(acked.size >= 300);

  const second = await startRipple();
  try {
    const h2 = { authorization: `Bearer ${second.token}`, 'content-type': 'application/json' };
    const list = (await (await fetch(`${second.base}/api/v1/namespaces/default/configmaps`, { headers: h2 })).json()) as {
      items: { metadata: { name: string; resourceVersion: string }; data: { v: string } }[];
    };
    const stored = new Map(list.items.map((i) => [i.metadata.name, i]));
    const lost = [...acked.keys()].filter((k) => !stored.has(k));
    assert.deepEqual(lost, [], 'every acknowledged create survives');
    for (const [name, rv] of acked) {
      assert.equal(stored.get(name)!.metadata.resourceVersion, rv);
      assert.equal(stored.get(name)!.data.v, name);
    }
    assert.ok(!stored.has('gone-1') && !stored.has('gone-2'), 'acknowledged deletes stay deleted');
    const after = await fetch(`${second.base}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: h2, body: JSON.stringify({ metadata: { name: 'after-restart' } }) });
    const rv = Number(((await after.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    assert.ok(rv > maxRv, `resourceVersion ${rv} after restart exceeds ${maxRv}`);
    assert.ok(Number(list.items.length) >= acked.size);
  } finally {
    await kill9(second.child);
  }
});
