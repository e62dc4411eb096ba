// agent: `ripple agent` runs the agent for one managed cluster (delivery modes push / collect);
// `ripple agent manager` runs the management side of any delivery mode on its own; `ripple agent rbac` prints the
// scoped management-cluster credential a pushing agent needs.
import { startAgentManager, startClusterAgent, startPullAgent, type DeliveryMode } from '../../agent/index.js';
import { isDNS1123Label, isDNS1123Subdomain, type ClusterType } from '../../api/index.js';
import { ClusterRegistry } from '../../clusters/index.js';
import { EventRecorder, InformerFactory, KubeClient, KubeConfigError, errorMessage, loadKubeConfig } from '../../kube/index.js';
import { createLogger, createMetricsRegistry, serveMetrics, type Logger } from '../../obs/index.js';
import { ExitCode, UsageError, oneOf, parseFlags, portFlag, type Command, type CommandIO } from '../command.js';
import { kubeConfigFrom, logLevelFlag, onStopSignal, type LogLevel } from '../runtime.js';

const AGENT_USAGE = `Usage: ripple agent --cluster-namespace NS --cluster-name NAME [--cluster-type Sveltos|Capi]
                    [--kubeconfig FILE] [--context CTX]
                    [--mgmt-kubeconfig FILE] [--mgmt-context CTX] [--run-mode send-reports|do-not-send-reports]
                    [--pull] [--coalesce-ms MS] [--metrics-port P] [--log-level LEVEL]

Runs the Ripple agent for ONE managed cluster, like Sveltos' sveltos-agent. It evaluates the EventSources found in
that cluster (only those annotated projectsveltos.io/deployed-by-sveltos, which the management side copies there),
watching every kind they select — one watch per kind, re-evaluating only changed objects — and keeps one
EventReport per EventSource in namespace projectsveltos, named after the EventSource.

CloudEvents (send-reports): EventSources with spec.messagingMatchCriteria receive CloudEvents over NATS/JetStream
with the settings of Secret projectsveltos/sveltos-nats (key sveltos-nats) in the managed cluster, as sveltos-agent
reads them; matching events are appended to the management-cluster EventReport. A missing Secret, an unreachable
server or refused credentials show as that EventSource's evaluation failure (EventTrigger status, Events); the
agent reconnects with capped backoff. The credential then also needs eventreports patch (already listed).

Run modes (Sveltos' --run-mode):
  send-reports          also write the management-cluster copy (namespace NS, name <type>--<eventsource>--NAME)
                        through --mgmt-kubeconfig; the default when --mgmt-kubeconfig is given.
                        The credential needs, in namespace NS only: eventreports get,list,watch,create,update,
                        patch,delete and eventreports/status get,update,patch (see \`ripple agent rbac\`).
  do-not-send-reports   only write the managed copy; the management side collects it
                        (\`ripple agent manager --mode collect\`). The default without --mgmt-kubeconfig.

Pull mode (--pull, for a SveltosCluster with spec.pullMode: true): the management cluster never connects to this
cluster. The agent watches the ConfigurationGroups of its cluster in namespace NS of the management cluster
(through --mgmt-kubeconfig, outbound only), applies their ConfigurationBundles to this cluster (--kubeconfig or the
in-cluster service account), removes what is no longer wanted, and reports in each ConfigurationGroup's status and
in the SveltosCluster's status (ready, version, agentLastReportTime). The management credential needs, in NS only:
configurationgroups get,list,watch,patch (+ /status patch), configurationbundles get,list, sveltosclusters/status
patch.

Flags:
  --cluster-namespace NS    namespace of the cluster's SveltosCluster / CAPI Cluster in the management cluster (required)
  --cluster-name NAME       its name                                                                         (required)
  --cluster-type TYPE       Sveltos (default) or Capi
  --kubeconfig FILE         the managed cluster (default: $KUBECONFIG, ~/.kube/config, or the in-cluster service account)
  --context CTX             context in --kubeconfig
  --mgmt-kubeconfig FILE    the management cluster (scoped credential), for send-reports
  --mgmt-context CTX        context in --mgmt-kubeconfig
  --run-mode MODE           send-reports or do-not-send-reports (see above)
  --pull                    pull mode: fetch and apply what the management cluster publishes (needs --mgmt-kubeconfig)
  --coalesce-ms MS          window in which bursts of object changes are evaluated together (default 10)
  --metrics-port P          serve Prometheus metrics on 127.0.0.1:P/metrics
  --log-level LEVEL         error, warn, info (default) or debug; JSON lines on stderr

Exit codes: 0 stopped by SIGTERM; 130 stopped by SIGINT; 2 bad command line; 3 unusable kubeconfig;
            4 a cluster cannot be reached at start.

Example:
  ripple agent --kubeconfig edge-1.yaml --cluster-namespace fleet --cluster-name edge-1 \\
               --mgmt-kubeconfig agent-credential.yaml
`;

const MANAGER_USAGE = `Usage: ripple agent manager [--mode agentless|push|collect] [--kubeconfig FILE] [--context CTX]
                            [--coalesce-ms MS] [--metrics-port P] [--log-level LEVEL]

Runs the management side of the agent on its own (\`ripple up\` and \`ripple manager\` run it with everything else).
It reads EventTriggers (and old EventBasedAddOns), EventSources and the registered clusters (SveltosClusters, Cluster
API Clusters) from the management cluster, and for every cluster works out which EventSources it needs: each
trigger whose sourceClusterSelector / clusterSetRefs select it contributes its eventSourceName (rendered with the
cluster's data). Reports nobody needs any more are withdrawn; an unreachable cluster keeps its last reports.

Modes:
  agentless (default)  evaluate every cluster from here, watching it remotely; write EventReports directly
  push                 copy EventSources into the managed clusters, where \`ripple agent --run-mode send-reports\`
                       evaluates them and pushes the reports
  collect              copy EventSources into the managed clusters and copy the reports that
                       \`ripple agent --run-mode do-not-send-reports\` writes there into the management cluster

Flags:
  --mode MODE          agentless, push or collect (default agentless)
  --kubeconfig FILE    the management cluster (default: $KUBECONFIG, ~/.kube/config, or in-cluster)
  --context CTX        context in --kubeconfig
  --coalesce-ms MS     window in which bursts of changes are evaluated together (default 10)
  --metrics-port P     serve Prometheus metrics on 127.0.0.1:P/metrics
  --log-level LEVEL    error, warn, info (default) or debug

Exit codes: 0 stopped by SIGTERM; 130 stopped by SIGINT; 2 bad command line; 3 unusable kubeconfig;
            4 the management cluster cannot be reached or lacks the Sveltos CRDs.
`;

const RBAC_USAGE = `Usage: ripple agent rbac --cluster-namespace NS --cluster-name NAME [--service-account NAME] [--pull]

Prints the management-cluster objects a pushing agent (\`ripple agent --run-mode send-reports\`) needs: a
ServiceAccount in NS and a Role + RoleBinding allowing EventReports (and their status) in NS only — nothing
cluster-wide, nothing in other namespaces. Build the agent's --mgmt-kubeconfig from a token of that ServiceAccount.

With --pull, the Role is the one a pulling agent (\`ripple agent --pull\`) needs instead: ConfigurationGroups
(get, list, watch, patch, update; status patch/update), ConfigurationBundles (get, list, watch) and the status of its
own SveltosCluster NAME — in NS only.

Flags:
  --cluster-namespace NS   namespace of the cluster in the management cluster (required)
  --cluster-name NAME      the cluster's name (required; names the objects)
  --service-account NAME   ServiceAccount name (default ripple-agent-NAME)
  --pull                   the credential of a pulling agent (pull mode)

Example:
  ripple agent rbac --cluster-namespace fleet --cluster-name edge-1 | kubectl apply -f -
  kubectl -n fleet create token ripple-agent-edge-1 --duration 8760h
`;

function parseCoalesce(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 60_000) throw new UsageError(`--coalesce-ms must be a number of milliseconds between 0 and 60000, not ${JSON.stringify(v)}`);
  return n;
}

function loggerFor(io: CommandIO, level: LogLevel): Logger {
  return createLogger({ level, destination: io.stderr, name: 'ripple-agent' });
}

async function reachable(client: KubeClient, what: string, io: CommandIO, cmd: string): Promise<boolean> {
  try {
    await client.version({ timeoutMs: 10_000 });
    return true;
  } catch (err) {
    io.stderr.write(`${cmd}: cannot reach ${what} at ${client.server}: ${errorMessage(err)}\nCheck the kubeconfig and that the cluster is up.\n`);
    return false;
  }
}

async function runPullAgent(values: Record<string, string | boolean | undefined>, io: CommandIO): Promise<number> {
  const cmd = 'ripple agent --pull';
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const ns = str('cluster-namespace');
  const name = str('cluster-name');
  if (!ns || !name) throw new UsageError(`missing ${[!ns && '--cluster-namespace', !name && '--cluster-name'].filter(Boolean).join(', ')}`);
  if (isDNS1123Label(ns).length > 0) throw new UsageError(`--cluster-namespace ${JSON.stringify(ns)} is not a valid namespace name`);
  if (isDNS1123Subdomain(name).length > 0) throw new UsageError(`--cluster-name ${JSON.stringify(name)} is not a valid object name`);
  if ((str('cluster-type') ?? 'Sveltos') !== 'Sveltos') throw new UsageError('--pull is for SveltosClusters (pull mode is a SveltosCluster setting)');
  if (str('run-mode')) throw new UsageError('--pull and --run-mode do not go together: a pulling agent applies configuration, it does not evaluate EventSources');
  if (!str('mgmt-kubeconfig')) throw new UsageError('--pull needs --mgmt-kubeconfig (the management-cluster credential the agent pulls with)');
  const level = logLevelFlag(str('log-level'), 'info');
  let local: KubeClient;
  let mgmt: KubeClient;
  try {
    local = new KubeClient(kubeConfigFrom(str('kubeconfig'), str('context')), { name: `${ns}/${name}` });
  } catch (err) {
    if (err instanceof KubeConfigError) {
      io.stderr.write(`${cmd}: managed cluster kubeconfig${str('kubeconfig') ? ` ${str('kubeconfig')}` : ''}: ${err.message}\n`);
      return ExitCode.BadInput;
    }
    throw err;
  }
  try {
    mgmt = new KubeClient(loadKubeConfig({ file: str('mgmt-kubeconfig')!, context: str('mgmt-context') }), { name: 'management' });
  } catch (err) {
    local.close();
    if (err instanceof KubeConfigError) {
      io.stderr.write(`${cmd}: --mgmt-kubeconfig ${str('mgmt-kubeconfig')}: ${err.message}\n`);
      return ExitCode.BadInput;
    }
    throw err;
  }
  if (!(await reachable(local, 'the managed cluster', io, cmd)) || !(await reachable(mgmt, 'the management cluster', io, cmd))) {
    local.close();
    mgmt.close();
    return ExitCode.Unavailable;
  }
  const logger = loggerFor(io, level);
  const agent = startPullAgent({ mgmt, local, clusterNamespace: ns, clusterName: name, logger });
  try {
    await agent.ready;
  } catch (err) {
    io.stderr.write(`${cmd}: cannot watch ConfigurationGroups in namespace ${ns} of the management cluster: ${errorMessage(err)}\nCheck that the management cluster serves ConfigurationGroup (lib.projectsveltos.io/v1beta1) and that the credential may list/watch them in ${ns}.\n`);
  }
  io.stdout.write(`ripple agent running in pull mode for SveltosCluster ${ns}/${name}: applying its ConfigurationGroups. Stop with Ctrl-C.\n`);
  const stop = onStopSignal();
  const signal = await stop.signal;
  stop.dispose();
  await agent.stop();
  local.close();
  mgmt.close();
  io.stderr.write(`${cmd}: stopped (${signal})\n`);
  return signal === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Ok;
}

export const commands: Command[] = [
  {
    path: ['agent'],
    summary: 'Run the agent for one managed cluster (EventSource detection, EventReports pushed or collected)',
    usage: AGENT_USAGE,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        'cluster-namespace': { type: 'string' },
        'cluster-name': { type: 'string' },
        'cluster-type': { type: 'string' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        'mgmt-kubeconfig': { type: 'string' },
        'mgmt-context': { type: 'string' },
        'run-mode': { type: 'string' },
        pull: { type: 'boolean' },
        'coalesce-ms': { type: 'string' },
        'metrics-port': { type: 'string' },
        'log-level': { type: 'string' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])} (subcommands: manager, rbac)`);
      if (values.pull) return runPullAgent(values, io);
      const ns = values['cluster-namespace'];
      const name = values['cluster-name'];
      if (!ns || !name) throw new UsageError(`missing ${[!ns && '--cluster-namespace', !name && '--cluster-name'].filter(Boolean).join(', ')}`);
      if (isDNS1123Label(ns).length > 0) throw new UsageError(`--cluster-namespace ${JSON.stringify(ns)} is not a valid namespace name`);
      if (isDNS1123Subdomain(name).length > 0) throw new UsageError(`--cluster-name ${JSON.stringify(name)} is not a valid object name`);
      const type = oneOf('--cluster-type', values['cluster-type'] ?? 'Sveltos', ['Sveltos', 'Capi']);
      const runMode = oneOf('--run-mode', values['run-mode'] ?? (values['mgmt-kubeconfig'] ? 'send-reports' : 'do-not-send-reports'), ['send-reports', 'do-not-send-reports']);
      if (runMode === 'send-reports' && !values['mgmt-kubeconfig']) throw new UsageError('--run-mode send-reports needs --mgmt-kubeconfig (the scoped management-cluster credential)');
      const coalesceMs = parseCoalesce(values['coalesce-ms']);
      const metricsPort = portFlag('metrics-port', values['metrics-port'], { min: 1 });
      const level = logLevelFlag(values['log-level'], 'info');
      const cmd = 'ripple agent';

      let managed: KubeClient;
      let mgmt: KubeClient | undefined;
      try {
        managed = new KubeClient(kubeConfigFrom(values.kubeconfig, values.context), { name: `${ns}/${name}` });
      } catch (err) {
        if (err instanceof KubeConfigError) {
          io.stderr.write(`${cmd}: managed cluster kubeconfig${values.kubeconfig ? ` ${values.kubeconfig}` : ''}: ${err.message}\n`);
          return ExitCode.BadInput;
        }
        throw err;
      }
      try {
        if (runMode === 'send-reports') mgmt = new KubeClient(loadKubeConfig({ file: values['mgmt-kubeconfig']!, context: values['mgmt-context'] }), { name: 'management' });
      } catch (err) {
        managed.close();
        if (err instanceof KubeConfigError) {
          io.stderr.write(`${cmd}: --mgmt-kubeconfig ${values['mgmt-kubeconfig']}: ${err.message}\n`);
          return ExitCode.BadInput;
        }
        throw err;
      }
      const close = () => {
        managed.close();
        mgmt?.close();
      };
      if (!(await reachable(managed, 'the managed cluster', io, cmd)) || (mgmt && !(await reachable(mgmt, 'the management cluster', io, cmd)))) {
        close();
        return ExitCode.Unavailable;
      }
      const logger = loggerFor(io, level);
      const metrics = createMetricsRegistry({ defaults: true });
      const server = metricsPort ? await serveMetrics(metrics, metricsPort) : undefined;
      const informers = new InformerFactory(managed, { logger });
      const mgmtInformers = mgmt ? new InformerFactory(mgmt, { logger }) : undefined;
      const recorder = new EventRecorder(managed, { component: 'ripple-agent', logger });
      const agent = await startClusterAgent({
        informers,
        management: mgmtInformers,
        cluster: { clusterNamespace: ns, clusterName: name, clusterType: type as ClusterType },
        recorder,
        logger,
        metrics,
        coalesceMs,
      });
      io.stdout.write(
        `ripple agent running for cluster ${type}:${ns}/${name} (run mode ${runMode}); evaluating ${agent.eventSources().length} EventSource(s). Stop with Ctrl-C.\n`,
      );
      const stop = onStopSignal();
      const signal = await stop.signal;
      stop.dispose();
      await agent.stop();
      await Promise.all([informers.stop(), mgmtInformers?.stop()]);
      await recorder.close();
      server?.close();
      close();
      io.stderr.write(`ripple agent: stopped (${signal})\n`);
      return signal === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Ok;
    },
  },
  {
    path: ['agent', 'manager'],
    summary: 'Run the management side of the agent (agentless evaluation, or EventSource distribution + collection)',
    usage: MANAGER_USAGE,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        mode: { type: 'string' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        'coalesce-ms': { type: 'string' },
        'metrics-port': { type: 'string' },
        'log-level': { type: 'string' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
      const mode = oneOf<DeliveryMode>('--mode', values.mode ?? 'agentless', ['agentless', 'push', 'collect']);
      const coalesceMs = parseCoalesce(values['coalesce-ms']);
      const metricsPort = portFlag('metrics-port', values['metrics-port'], { min: 1 });
      const level = logLevelFlag(values['log-level'], 'info');
      const cmd = 'ripple agent manager';
      let mgmt: KubeClient;
      try {
        mgmt = new KubeClient(kubeConfigFrom(values.kubeconfig, values.context), { name: 'management' });
      } catch (err) {
        if (err instanceof KubeConfigError) {
          io.stderr.write(`${cmd}: management kubeconfig${values.kubeconfig ? ` ${values.kubeconfig}` : ''}: ${err.message}\n`);
          return ExitCode.BadInput;
        }
        throw err;
      }
      if (!(await reachable(mgmt, 'the management cluster', io, cmd))) {
        mgmt.close();
        return ExitCode.Unavailable;
      }
      try {
        await mgmt.resource({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport' });
      } catch (err) {
        mgmt.close();
        io.stderr.write(`${cmd}: the management cluster does not serve EventReport (lib.projectsveltos.io/v1beta1): ${errorMessage(err)}\nInstall the CRDs first:  ripple manifests crds | kubectl apply -f -\n`);
        return ExitCode.Unavailable;
      }
      const logger = loggerFor(io, level);
      const metrics = createMetricsRegistry({ defaults: true });
      const server = metricsPort ? await serveMetrics(metrics, metricsPort) : undefined;
      const informers = new InformerFactory(mgmt, { logger });
      const registry = new ClusterRegistry({ informers, logger });
      const recorder = new EventRecorder(mgmt, { component: 'ripple-agent', logger });
      const manager = await startAgentManager({ mode, informers, registry, recorder, logger, metrics, coalesceMs });
      io.stdout.write(`ripple agent manager running in ${mode} mode; ${manager.needs().size} cluster(s) evaluated. Stop with Ctrl-C.\n`);
      const stop = onStopSignal();
      const signal = await stop.signal;
      stop.dispose();
      await manager.stop();
      await registry.stop();
      await informers.stop();
      await recorder.close();
      server?.close();
      mgmt.close();
      io.stderr.write(`ripple agent manager: stopped (${signal})\n`);
      return signal === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Ok;
    },
  },
  {
    path: ['agent', 'rbac'],
    summary: 'Print the scoped management-cluster credential (ServiceAccount, Role, RoleBinding) of a pushing agent',
    usage: RBAC_USAGE,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        'cluster-namespace': { type: 'string' },
        'cluster-name': { type: 'string' },
        'service-account': { type: 'string' },
        pull: { type: 'boolean' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
      const ns = values['cluster-namespace'];
      const name = values['cluster-name'];
      if (!ns || !name) throw new UsageError(`missing ${[!ns && '--cluster-namespace', !name && '--cluster-name'].filter(Boolean).join(', ')}`);
      if (isDNS1123Label(ns).length > 0) throw new UsageError(`--cluster-namespace ${JSON.stringify(ns)} is not a valid namespace name`);
      const sa = values['service-account'] ?? `ripple-agent-${name}`;
      if (isDNS1123Subdomain(sa).length > 0) throw new UsageError(`service account name ${JSON.stringify(sa)} is not valid; pass --service-account`);
      io.stdout.write(agentRbacYaml(ns, sa, values.pull ? name : undefined));
      return ExitCode.Ok;
    },
  },
];

/** agentRbacYaml is the ServiceAccount, Role and RoleBinding of a pushing agent's management-cluster credential. */
export function agentRbacYaml(namespace: string, serviceAccount: string, pullCluster?: string): string {
  const rules =
    pullCluster === undefined
      ? `- apiGroups: ["lib.projectsveltos.io"]
  resources: ["eventreports"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["lib.projectsveltos.io"]
  resources: ["eventreports/status"]
  verbs: ["get", "update", "patch"]`
      : `- apiGroups: ["lib.projectsveltos.io"]
  resources: ["configurationgroups"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: ["lib.projectsveltos.io"]
  resources: ["configurationgroups/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["lib.projectsveltos.io"]
  resources: ["configurationbundles"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["lib.projectsveltos.io"]
  resources: ["sveltosclusters/status"]
  resourceNames: ["${pullCluster}"]
  verbs: ["get", "patch", "update"]`;
  return `apiVersion: v1
kind: ServiceAccount
metadata:
  name: ${serviceAccount}
  namespace: ${namespace}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: ${serviceAccount}
  namespace: ${namespace}
rules:
${rules}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ${serviceAccount}
  namespace: ${namespace}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: ${serviceAccount}
subjects:
- kind: ServiceAccount
  name: ${serviceAccount}
  namespace: ${namespace}
`;
}
