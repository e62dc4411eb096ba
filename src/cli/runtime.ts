// runtime.ts: what the long-running commands (agent, apiserver, manager, up) share — the --log-level flag, the
// kubeconfig chain, and stopping on SIGINT/SIGTERM.
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigError, loadKubeConfig } from '../kube/index.js';
import { oneOf } from './command.js';

/** LOG_LEVELS are the values of --log-level, most severe first. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
/** LogLevel is one of LOG_LEVELS. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** logLevelFlag parses --log-level (absent: fallback), or throws a UsageError listing the levels. */
export function logLevelFlag(value: string | undefined, fallback: LogLevel): LogLevel;
export function logLevelFlag(value: string | undefined, fallback?: undefined): LogLevel | undefined;
export function logLevelFlag(value: string | undefined, fallback?: LogLevel): LogLevel | undefined {
  if (value === undefined) return fallback;
  return oneOf('--log-level', value, LOG_LEVELS);
}

/** kubeConfigFrom loads --kubeconfig, or the default chain ($KUBECONFIG, ~/.kube/config, in-cluster). */
export function kubeConfigFrom(file: string | undefined, context: string | undefined): KubeConfig {
  if (file) return loadKubeConfig({ file, context });
  const kc = new KubeConfig();
  try {
    kc.loadFromDefault();
  } catch (err) {
    // $KUBECONFIG naming a missing or unreadable file: client-node throws the raw fs/YAML error.
    throw new KubeConfigError('Unreadable', `cannot read the kubeconfig ($KUBECONFIG=${process.env.KUBECONFIG ?? ''}): ${err instanceof Error ? err.message : String(err)}; pass --kubeconfig FILE or fix KUBECONFIG`);
  }
  if (!kc.getCurrentCluster()) throw new KubeConfigError('NoCluster', 'no kubeconfig found: pass --kubeconfig FILE, set KUBECONFIG, or run inside a cluster');
  return loadKubeConfig({ kubeConfig: kc, context });
}

/** StopSignal resolves with the first SIGINT/SIGTERM (aborting `abort`); dispose removes the handlers. */
export interface StopSignal {
  signal: Promise<NodeJS.Signals>;
  abort: AbortController;
  dispose(): void;
}

/** onStopSignal starts listening for SIGINT and SIGTERM. */
export function onStopSignal(): StopSignal {
  const abort = new AbortController();
  let resolveSignal!: (s: NodeJS.Signals) => void;
  const signal = new Promise<NodeJS.Signals>((r) => (resolveSignal = r));
  const on = (s: NodeJS.Signals) => {
    abort.abort();
    resolveSignal(s);
  };
  const onInt = () => on('SIGINT');
  const onTerm = () => on('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    signal,
    abort,
    dispose() {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}
