// cli bench: process wall time of `ripple` as a user starts it — `bin/ripple.js` running the sources through tsx
// (RIPPLE_FROM_SOURCE=1, what every command paid before the compiled build) versus the compiled build in dist/
// (rebuilt first) — for `--version`, `--help` (imports every command) and `get clusters` against an embedded server
// with the CRDs installed and the management cluster registered; and `--version` as it started before issue 19
// (tsx, every command imported first). Best of N runs, plus the median; the machine is
// shared, so the best run is the one least disturbed by others. Targets (issue 19): --version ≤ 300 ms, get ≤ 500 ms.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startTestApiServer } from '../../test/support/apiserver.js';
import { KubeClient } from '../kube/index.js';
import { installCrds, registerManagementCluster } from '../manager/index.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'ripple.js');
const RUNS = 5;

// wallMs runs node with args to completion and returns its wall time; async so the in-process server keeps serving.
function wallMs(args: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${args.join(' ')} exited ${code}: ${err}`))));
  });
}

async function bestOf(args: string[], env: Record<string, string>): Promise<{ bestMs: number; medianMs: number }> {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await wallMs(args, env));
  samples.sort((a, b) => a - b);
  return { bestMs: Math.round(samples[0]), medianMs: Math.round(samples[Math.floor(samples.length / 2)]) };
}

/** bench measures the start-up of ripple commands from the sources (tsx) and from the compiled build. */
export async function bench(): Promise<Record<string, unknown>> {
  const buildMs = await wallMs([join(ROOT, 'scripts', 'build.mjs')], {});
  const api = await startTestApiServer({ clusters: ['mgmt'] });
  try {
    const client = new KubeClient(await api.kubeConfig('mgmt'));
    await installCrds(client);
    await registerManagementCluster(client, api.server.kubeconfigYaml('mgmt'));
    client.close();
    const commands: Record<string, string[]> = {
      version: ['--version'],
      help: ['--help'],
      getClusters: ['get', 'clusters', '--kubeconfig', api.kubeconfigPath, '--context', 'mgmt'],
    };
    const out: Record<string, unknown> = { runs: RUNS, buildMs: Math.round(buildMs), nodeBareMs: (await bestOf(['-e', '0'], {})).bestMs };
    for (const [name, args] of Object.entries(commands)) {
      const tsx = await bestOf([BIN, ...args], { RIPPLE_FROM_SOURCE: '1' });
      const dist = await bestOf([BIN, ...args], { RIPPLE_FROM_SOURCE: '' });
      out[name] = { tsx, dist, speedup: Number((tsx.bestMs / dist.bestMs).toFixed(1)) };
    }
    // Before issue 19, bin/ripple.js loaded the sources through tsx and imported every command before dispatching.
    const before = `import { loadCommands, main } from ${JSON.stringify(join(ROOT, 'src', 'cli', 'main.ts'))}; await loadCommands(); process.exitCode = await main(['--version']);`;
    out.versionBeforeIssue19 = await bestOf(['--import', 'tsx', '--input-type=module', '-e', before], {});
    out.targets = { versionMs: 300, getMs: 500 };
    return out;
  } finally {
    await api.stop();
  }
}
