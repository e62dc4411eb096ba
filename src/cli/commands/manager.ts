// manager: `ripple manager` — the whole control plane against a real management cluster (standard Kubernetes API
// behaviour only): fleet registry with readiness and ClusterSet controllers, agentless agents or collection from
// in-cluster agents, the event manager and the add-on deployer, optionally behind Lease leader election.
import { KubeConfig } from '@kubernetes/client-node';
import { hostname } from 'node:os';
import {
  KubeClient,
  KubeConfigError,
  errorMessage,
  flattenKubeConfig,
  isForbidden,
  isKindNotInstalled,
  isStatusError,
  isUnreachable,
  kubeConfigYaml,
} from '../../kube/index.js';
import { AGENT_MODES, SVELTOS_NAMESPACE, ensureNamespace, installCrds, registerManagementCluster, startManager, type AgentMode, type Manager } from '../../manager/index.js';
import { createLogger } from '../../obs/index.js';
import { ExitCode, UsageError, oneOf, parseFlags, portFlag, type Command, type CommandIO } from '../command.js';
import { kubeConfigFrom, logLevelFlag, onStopSignal } from '../runtime.js';

const USAGE = `Usage: ripple manager [--kubeconfig FILE] [--context CTX] [--install-crds] [--register-management-cluster]
                      [--agent-mode agentless|collect] [--metrics-port P] [--metrics-address ADDR]
                      [--leader-elect] [--leader-elect-namespace NS] [--shard-key KEY] [--log-level LEVEL]

Runs Ripple's control plane against a management cluster: the fleet registry (SveltosClusters and Cluster API
Clusters, readiness probes, ClusterSets/Sets), the agent's management side, the event manager (EventTriggers and
EventBasedAddOns → ClusterProfiles) and the add-on deployer (ClusterProfiles/Profiles → objects in the clusters).
It uses only standard Kubernetes API behaviour, so it works against any conformant API server, and writes Kubernetes
Events, Prometheus metrics and JSON logs (stderr).

Flags:
  --kubeconfig FILE            the management cluster (default: $KUBECONFIG, ~/.kube/config, or in-cluster)
  --context CTX                context in --kubeconfig
  --install-crds               server-side apply Ripple's CRDs (ripple manifests crds) and create namespace
                               ${SVELTOS_NAMESPACE} before starting
  --register-management-cluster
                               register the management cluster as a target of its own: SveltosCluster mgmt/mgmt with
                               the kubeconfig's current context (flattened) in Secret mgmt/mgmt-sveltos-kubeconfig
  --agent-mode MODE            agentless (default): watch every managed cluster from here; collect: copy EventSources
                               into the clusters and collect the reports of \`ripple agent --run-mode do-not-send-reports\`
  --metrics-port P             serve Prometheus metrics on ADDR:P/metrics (and /healthz)
  --metrics-address ADDR       address for --metrics-port (default 127.0.0.1; 0.0.0.0 inside a Pod)
  --leader-elect               run the controllers only while holding Lease ${SVELTOS_NAMESPACE}/ripple-manager (run
                               several replicas; one is active). A replica that loses the Lease exits (code 1)
  --leader-elect-namespace NS  namespace of that Lease (default ${SVELTOS_NAMESPACE})
  --shard-key KEY              manage only clusters annotated sharding.projectsveltos.io/key=KEY ('' = unannotated)
  --log-level LEVEL            error, warn, info (default) or debug; JSON lines on stderr

Exit codes: 0 stopped by SIGTERM; 130 stopped by SIGINT; 1 lost leadership; 2 bad command line;
            3 unusable kubeconfig; 4 the management cluster cannot be reached, refuses a write, or lacks the CRDs.

Examples:
  ripple manager --kubeconfig mgmt.yaml --install-crds --register-management-cluster
  ripple manager --leader-elect --metrics-port 8080 --metrics-address 0.0.0.0      # in a Pod (in-cluster config)
`;

/** apiFailure turns a client error during start-up into a message saying what to do. */
function apiFailure(io: CommandIO, what: string, err: unknown): number {
  let hint = '';
  if (isKindNotInstalled(err)) hint = '\nInstall the CRDs first: ripple manager --install-crds (or ripple manifests crds | kubectl apply --server-side -f -)';
  else if (isForbidden(err)) hint = '\nThe credential lacks the permission; use one allowed to manage CRDs, namespaces, Secrets and Sveltos objects.';
  else if (isUnreachable(err)) hint = '\nCheck the kubeconfig and that the cluster is up.';
  io.stderr.write(`ripple manager: ${what}: ${errorMessage(err)}${hint}\n`);
  return ExitCode.Unavailable;
}

export const commands: Command[] = [
  {
    path: ['manager'],
    summary: 'Run the control plane (fleet registry, agents, event manager, add-on deployer) against a management cluster',
    usage: USAGE,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        'install-crds': { type: 'boolean' },
        'register-management-cluster': { type: 'boolean' },
        'agent-mode': { type: 'string' },
        'metrics-port': { type: 'string' },
        'metrics-address': { type: 'string' },
        'leader-elect': { type: 'boolean' },
        'leader-elect-namespace': { type: 'string' },
        'shard-key': { type: 'string' },
        'log-level': { type: 'string' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
      const agentMode = oneOf<AgentMode>('--agent-mode', values['agent-mode'] ?? 'agentless', AGENT_MODES);
      const metricsPort = portFlag('metrics-port', values['metrics-port']);
      const level = logLevelFlag(values['log-level'], 'info');
      if (values['leader-elect-namespace'] !== undefined && !values['leader-elect']) throw new UsageError('--leader-elect-namespace needs --leader-elect');

      let kc: KubeConfig;
      let client: KubeClient;
      try {
        kc = kubeConfigFrom(values.kubeconfig, values.context);
        client = new KubeClient(kc, { name: 'management' });
      } catch (err) {
        if (err instanceof KubeConfigError) {
          io.stderr.write(`ripple manager: kubeconfig${values.kubeconfig ? ` ${values.kubeconfig}` : ''}: ${err.message}\n`);
          return ExitCode.BadInput;
        }
        throw err;
      }
      const logger = createLogger({ level, destination: io.stderr, name: 'ripple-manager' });
      const out = (s: string) => io.stdout.write(`${s}\n`);
      try {
        const v = await client.version({ timeoutMs: 10_000 });
        out(`ripple manager: management cluster ${client.server} (Kubernetes ${v.gitVersion})`);
      } catch (err) {
        client.close();
        return apiFailure(io, `cannot reach the management cluster at ${client.server}`, err);
      }
      try {
        if (values['install-crds']) {
          const r = await installCrds(client);
          out(`CRDs: ${r.created.length} created, ${r.updated.length} updated, ${r.unchanged.length} unchanged`);
          out(`namespace ${SVELTOS_NAMESPACE} ${await ensureNamespace(client, SVELTOS_NAMESPACE)}`);
        }
        await client.resource({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger' });
        if (values['register-management-cluster']) {
          const actions = await registerManagementCluster(client, kubeConfigYaml(flattenKubeConfig(kc)));
          for (const a of actions) out(`${a.object} ${a.result}`);
        }
      } catch (err) {
        client.close();
        if (err instanceof KubeConfigError) {
          io.stderr.write(`ripple manager: cannot register the management cluster: ${err.message}\n`);
          return ExitCode.BadInput;
        }
        if (isStatusError(err) || isUnreachable(err) || isKindNotInstalled(err)) return apiFailure(io, 'preparing the management cluster failed', err);
        throw err;
      }

      const sig = onStopSignal();
      let manager: Manager;
      try {
        manager = await startManager({
          client,
          logger,
          agentMode,
          metricsPort,
          metricsHost: values['metrics-address'],
          shardKey: values['shard-key'],
          leaderElection: values['leader-elect'] ? { namespace: values['leader-elect-namespace'], identity: `${hostname()}-${process.pid}` } : undefined,
        });
      } catch (err) {
        sig.dispose();
        client.close();
        if (isStatusError(err) || isUnreachable(err) || isKindNotInstalled(err)) return apiFailure(io, 'starting the controllers failed', err);
        throw err;
      }
      out(
        `ripple manager running (agent mode ${agentMode}${values['leader-elect'] ? ', leader election on' : ''}${manager.metricsPort !== undefined ? `, metrics on ${values['metrics-address'] ?? '127.0.0.1'}:${manager.metricsPort}/metrics` : ''}); ` +
          `${manager.registry.all().length} cluster(s) registered. Stop with Ctrl-C.`,
      );
      const ended = await Promise.race([sig.signal, manager.done]);
      sig.dispose();
      await manager.stop();
      client.close();
      if (typeof ended === 'object') {
        io.stderr.write(`ripple manager: ${ended.message}; exiting so that a supervisor restarts this replica\n`);
        return ExitCode.Failed;
      }
      io.stderr.write(`ripple manager: stopped (${ended})\n`);
      return ended === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Ok;
    },
  },
];
