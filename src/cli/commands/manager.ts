// manager: `ripple manager` — the whole control plane against a real management cluster (standard Kubernetes API
// behaviour only): fleet registry with readiness and ClusterSet controllers, agentless agents or collection from
// in-cluster agents, the event manager and the add-on deployer, optionally behind Lease leader election.
import { KubeConfig } from '@kubernetes/client-node';
import { hostname } from 'node:os';
import {
  FencedError,
  InformerFactory,
  KubeClient,
  KubeConfigError,
  LeaderElector,
  errorMessage,
  flattenKubeConfig,
  isForbidden,
  isKindNotInstalled,
  isStatusError,
  isUnreachable,
  kubeConfigYaml,
} from '../../kube/index.js';
import {
  AGENT_MODES,
  SVELTOS_NAMESPACE,
  ShardController,
  ensureNamespace,
  installCrds,
  registerManagementCluster,
  startManager,
  type AgentMode,
  type Manager,
  type ShardDeploymentTemplate,
} from '../../manager/index.js';
import { parseGoDuration } from '../../events/index.js';
import { createLogger, type Logger } from '../../obs/index.js';
import { startUi, type UiServer } from '../../ui/index.js';
import { ExitCode, UsageError, oneOf, parseFlags, portFlag, type Command, type CommandIO } from '../command.js';
import { kubeConfigFrom, logLevelFlag, onStopSignal } from '../runtime.js';

const USAGE = `Usage: ripple manager [--kubeconfig FILE] [--context CTX] [--install-crds] [--register-management-cluster]
                      [--agent-mode agentless|collect] [--deploy-agent --agent-image IMAGE]
                      [--metrics-port P] [--metrics-address ADDR]
                      [--leader-elect] [--leader-elect-id NAME] [--leader-elect-namespace NS]
                      [--leader-elect-lease-duration D] [--leader-elect-renew-deadline D]
                      [--leader-elect-retry-period D] [--shard-key KEY] [--ui-port P] [--log-level LEVEL]
       ripple manager --shard-controller --shard-image IMAGE [--shard-replicas N] [--shard-namespace NS]
                      [--shard-arg ARG]... [--shard-service-account SA] [--leader-elect ...] [--kubeconfig FILE]

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
  --deploy-agent               with --agent-mode collect: install that agent into every managed cluster EventSources
                               are copied to (namespace ${SVELTOS_NAMESPACE}: ServiceAccount, read-only ClusterRole +
                               EventReports, Deployment ripple-agent), like Sveltos installs sveltos-agent
  --agent-image IMAGE          image of the deployed agents (entrypoint \`ripple\`); required by --deploy-agent
  --metrics-port P             serve Prometheus metrics on ADDR:P/metrics (and /healthz)
  --metrics-address ADDR       address for --metrics-port (default 127.0.0.1; 0.0.0.0 inside a Pod)
  --leader-elect               run the controllers only while holding this shard's Lease (run several replicas per
                               shard; one is active). One Lease per shard: ripple-manager without --shard-key,
                               ripple-manager-unsharded for --shard-key '', ripple-manager-shard-KEY for a key that
                               is a lowercase DNS label of at most 40 characters, else
                               ripple-manager-shard-<sanitized key>-<first 10 hex digits of sha256(KEY)>
  --leader-elect-id NAME       Lease name instead of the one derived from --shard-key
  --leader-elect-namespace NS  namespace of that Lease (default ${SVELTOS_NAMESPACE})
  --leader-elect-lease-duration D
                               how long a Lease stays valid after its last renewal (default 15s; Go duration)
  --leader-elect-renew-deadline D
                               the leader stops every controller and exits (code 1) when it could not renew for this
                               long (default 10s; must be less than the lease duration, so that it has stopped
                               writing before a standby may take the Lease over)
  --leader-elect-retry-period D
                               time between tries to acquire or renew (default 2s); a standby takes over at most
                               lease duration + retry period after the leader died
  --shard-key KEY              manage only clusters annotated sharding.projectsveltos.io/key=KEY ('' = unannotated).
                               A cluster whose annotation changes moves to the manager of its new shard: the new one
                               adopts its ClusterSummaries and objects, the old one lets go without withdrawing
  --ui-port P                  serve the read-only web dashboard on 127.0.0.1:P (0: a free port; the URL is printed)
  --log-level LEVEL            error, warn, info (default) or debug; JSON lines on stderr

Shard controller (like Sveltos' shard-controller; runs instead of the control plane):
  --shard-controller           watch the shard keys in use (annotation sharding.projectsveltos.io/key on
                               SveltosClusters and Cluster API Clusters) and keep one manager Deployment per key,
                               named like its Lease (ripple-manager-shard-KEY), running
                               \`ripple manager --leader-elect --shard-key KEY\`; a Deployment whose key no cluster uses
                               any more is deleted. Clusters without the annotation are the default manager's. With
                               --leader-elect it elects on Lease ripple-shard-controller (or --leader-elect-id)
  --shard-image IMAGE          image of the shard managers (entrypoint \`ripple\`); required
  --shard-replicas N           replicas per shard: one leads, the others stand by (default 2)
  --shard-namespace NS         namespace of the Deployments and their Leases (default ${SVELTOS_NAMESPACE})
  --shard-arg ARG              an extra argument for every shard's \`ripple manager\` (repeat for several)
  --shard-service-account SA   service account of the shard managers' pods

Exit codes: 0 stopped by SIGTERM; 130 stopped by SIGINT; 1 lost leadership (could not renew the Lease within the
            renew deadline, or another replica holds it): controllers stopped at once; 2 bad command line;
            3 unusable kubeconfig; 4 the management cluster cannot be reached, refuses a write, or lacks the CRDs.

Examples:
  ripple manager --kubeconfig mgmt.yaml --install-crds --register-management-cluster
  ripple manager --leader-elect --metrics-port 8080 --metrics-address 0.0.0.0      # in a Pod (in-cluster config)
  ripple manager --leader-elect --shard-key eu                                       # the managers of shard eu
  ripple manager --agent-mode collect --deploy-agent --agent-image ghcr.io/acme/ripple:v1
  ripple manager --shard-controller --shard-image ghcr.io/acme/ripple:v1 --shard-arg=--agent-mode=collect
`;

/** durationFlag parses a Go duration flag (`15s`, `500ms`) into milliseconds; undefined when absent. */
function durationFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseGoDuration(value);
  if (ms === undefined || ms <= 0) throw new UsageError(`--${name} must be a positive duration such as 15s or 500ms, not ${JSON.stringify(value)}`);
  return ms;
}

/**
 * runShardController runs the shard controller until SIGINT/SIGTERM (optionally only while holding its Lease; losing
 * it exits with code 1 as the manager does).
 */
async function runShardController(
  io: CommandIO,
  client: KubeClient,
  logger: Logger,
  template: ShardDeploymentTemplate,
  le: { namespace?: string; name?: string; leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number } | undefined,
): Promise<number> {
  const out = (s: string) => io.stdout.write(`${s}\n`);
  let elector: LeaderElector | undefined;
  // Fenced as the manager is: with leader election, no Deployment write leaves once the Lease may be gone.
  const writer = le
    ? new KubeClient(client.kubeConfig, {
        name: client.name,
        writeGuard: () => {
          if (!elector?.holdsLease()) throw new FencedError('not sent: this replica does not hold the shard controller Lease (any more)');
        },
      })
    : client;
  const informers = new InformerFactory(writer, { logger });
  const controller = new ShardController({ informers, template, logger });
  const sig = onStopSignal();
  let lost: (() => void) | undefined;
  const lostLease = new Promise<'lost'>((r) => (lost = () => r('lost')));
  const run = async () => {
    await controller.start();
    out(`ripple manager: shard controller running: one manager Deployment (${template.replicas ?? 2} replica(s), image ${template.image}) per shard key in namespace ${template.namespace}`);
  };
  try {
    if (le) {
      const lease = { namespace: le.namespace ?? SVELTOS_NAMESPACE, name: le.name ?? 'ripple-shard-controller' };
      elector = new LeaderElector(client, {
        ...lease,
        identity: `${hostname()}-${process.pid}`,
        leaseDurationMs: le.leaseDurationMs,
        renewDeadlineMs: le.renewDeadlineMs,
        retryPeriodMs: le.retryPeriodMs,
        logger,
        onStartedLeading: (signal) => {
          signal.addEventListener('abort', () => lost?.());
          void run().catch((err) => {
            logger.error({ err: errorMessage(err) }, 'the shard controller failed to start');
            lost?.();
          });
        },
      });
      out(`ripple manager: shard controller waiting for Lease ${lease.namespace}/${lease.name}`);
      elector.start();
    } else {
      await run();
    }
  } catch (err) {
    sig.dispose();
    await controller.stop();
    await informers.stop();
    if (writer !== client) writer.close();
    client.close();
    if (isStatusError(err) || isUnreachable(err) || isKindNotInstalled(err)) return apiFailure(io, 'starting the shard controller failed', err);
    throw err;
  }
  const ended = await Promise.race([sig.signal, lostLease]);
  sig.dispose();
  if (ended === 'lost') {
    io.stderr.write('ripple manager: the shard controller lost its Lease; exiting so that a supervisor restarts this replica\n');
    await Promise.race([controller.stop(), new Promise((r) => setTimeout(r, 1_000).unref())]);
    process.exit(ExitCode.Failed);
  }
  await elector?.stop();
  await controller.stop();
  await informers.stop();
  if (writer !== client) writer.close();
  client.close();
  io.stderr.write(`ripple manager: stopped (${ended})\n`);
  return ended === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Ok;
}

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
        'deploy-agent': { type: 'boolean' },
        'agent-image': { type: 'string' },
        'metrics-port': { type: 'string' },
        'metrics-address': { type: 'string' },
        'leader-elect': { type: 'boolean' },
        'leader-elect-namespace': { type: 'string' },
        'leader-elect-id': { type: 'string' },
        'leader-elect-lease-duration': { type: 'string' },
        'leader-elect-renew-deadline': { type: 'string' },
        'leader-elect-retry-period': { type: 'string' },
        'shard-key': { type: 'string' },
        'shard-controller': { type: 'boolean' },
        'shard-image': { type: 'string' },
        'shard-replicas': { type: 'string' },
        'shard-namespace': { type: 'string' },
        'shard-arg': { type: 'string', multiple: true },
        'shard-service-account': { type: 'string' },
        'log-level': { type: 'string' },
        'ui-port': { type: 'string' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
      const agentMode = oneOf<AgentMode>('--agent-mode', values['agent-mode'] ?? 'agentless', AGENT_MODES);
      if (values['deploy-agent'] && agentMode !== 'collect') throw new UsageError('--deploy-agent needs --agent-mode collect (the deployed agent leaves its reports for the manager to collect)');
      if (values['deploy-agent'] && !values['agent-image']) throw new UsageError('--deploy-agent needs --agent-image IMAGE (an image built from Ripple\'s Dockerfile)');
      if (values['agent-image'] !== undefined && !values['deploy-agent']) throw new UsageError('--agent-image needs --deploy-agent');
      const metricsPort = portFlag('metrics-port', values['metrics-port']);
      const uiPort = portFlag('ui-port', values['ui-port']);
      const level = logLevelFlag(values['log-level'], 'info');
      for (const f of ['leader-elect-namespace', 'leader-elect-id', 'leader-elect-lease-duration', 'leader-elect-renew-deadline', 'leader-elect-retry-period'] as const) {
        if (values[f] !== undefined && !values['leader-elect']) throw new UsageError(`--${f} needs --leader-elect`);
      }
      const leaseDurationMs = durationFlag('leader-elect-lease-duration', values['leader-elect-lease-duration']) ?? 15_000;
      const renewDeadlineMs = durationFlag('leader-elect-renew-deadline', values['leader-elect-renew-deadline']) ?? 10_000;
      const retryPeriodMs = durationFlag('leader-elect-retry-period', values['leader-elect-retry-period']) ?? 2_000;
      if (renewDeadlineMs >= leaseDurationMs) throw new UsageError('--leader-elect-renew-deadline must be less than --leader-elect-lease-duration');
      if (retryPeriodMs >= renewDeadlineMs) throw new UsageError('--leader-elect-retry-period must be less than --leader-elect-renew-deadline');
      if (values['leader-elect-id'] !== undefined && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(values['leader-elect-id'])) {
        throw new UsageError(`--leader-elect-id must be a DNS subdomain (lowercase letters, digits, '-' and '.'), not ${JSON.stringify(values['leader-elect-id'])}`);
      }

      const shardController = values['shard-controller'] === true;
      for (const f of ['shard-image', 'shard-replicas', 'shard-namespace', 'shard-arg', 'shard-service-account'] as const) {
        if (values[f] !== undefined && !shardController) throw new UsageError(`--${f} needs --shard-controller`);
      }
      let template: ShardDeploymentTemplate | undefined;
      if (shardController) {
        if (values['shard-key'] !== undefined) throw new UsageError('--shard-controller manages every shard: it takes no --shard-key');
        if (!values['shard-image']) throw new UsageError('--shard-controller needs --shard-image IMAGE (the image the shard managers run)');
        const replicas = values['shard-replicas'] === undefined ? 2 : Number(values['shard-replicas']);
        if (!Number.isInteger(replicas) || replicas < 0) throw new UsageError(`--shard-replicas must be a whole number ≥ 0, not ${JSON.stringify(values['shard-replicas'])}`);
        template = {
          namespace: values['shard-namespace'] ?? SVELTOS_NAMESPACE,
          image: values['shard-image'],
          replicas,
          args: values['shard-arg'] ?? [],
          serviceAccountName: values['shard-service-account'],
        };
      }

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

      if (template) {
        return runShardController(io, client, logger, template, values['leader-elect'] ? { namespace: values['leader-elect-namespace'], name: values['leader-elect-id'], leaseDurationMs, renewDeadlineMs, retryPeriodMs } : undefined);
      }

      const sig = onStopSignal();
      let manager: Manager;
      try {
        manager = await startManager({
          client,
          logger,
          agentMode,
          agentDeployment: values['deploy-agent'] ? { image: values['agent-image']! } : undefined,
          metricsPort,
          metricsHost: values['metrics-address'],
          shardKey: values['shard-key'],
          leaderElection: values['leader-elect']
            ? { namespace: values['leader-elect-namespace'], name: values['leader-elect-id'], identity: `${hostname()}-${process.pid}`, leaseDurationMs, renewDeadlineMs, retryPeriodMs }
            : undefined,
        });
      } catch (err) {
        sig.dispose();
        client.close();
        if (isStatusError(err) || isUnreachable(err) || isKindNotInstalled(err)) return apiFailure(io, 'starting the controllers failed', err);
        throw err;
      }
      let ui: UiServer | undefined;
      if (uiPort !== undefined) {
        try {
          ui = await startUi({ informers: manager.informers, registry: manager.registry, metrics: manager.metrics, port: uiPort, logger });
        } catch (err) {
          sig.dispose();
          await manager.stop();
          client.close();
          if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
            io.stderr.write(`ripple manager: dashboard port ${uiPort} is in use; pick another --ui-port (0: a free one)\n`);
            return ExitCode.Unavailable;
          }
          throw err;
        }
        out(`ripple manager: dashboard on ${ui.url} (read-only)`);
      }
      out(
        `ripple manager running (agent mode ${agentMode}${values['shard-key'] !== undefined ? `, shard ${JSON.stringify(values['shard-key'])}` : ''}${manager.leaseRef ? `, leader election on Lease ${manager.leaseRef.namespace}/${manager.leaseRef.name}` : ''}${manager.metricsPort !== undefined ? `, metrics on ${values['metrics-address'] ?? '127.0.0.1'}:${manager.metricsPort}/metrics` : ''}); ` +
          `${manager.registry.all().length} cluster(s) registered. Stop with Ctrl-C.`,
      );
      void manager.running.then(() => out(`ripple manager: leading${manager.leaseRef ? ` (Lease ${manager.leaseRef.namespace}/${manager.leaseRef.name})` : ''}`));
      const ended = await Promise.race([sig.signal, manager.done]);
      sig.dispose();
      if (typeof ended === 'object') {
        // Fencing, as client-go's OnStoppedLeading → Fatalf: the controllers were aborted when the renew deadline
        // passed; give them a bounded moment to unwind, then end the process so that nothing it still holds (an
        // in-flight reconcile, a retry timer) can write once a standby may own the Lease. The bound keeps well inside
        // lease duration − renew deadline.
        io.stderr.write(`ripple manager: ${ended.message}; exiting so that a supervisor restarts this replica\n`);
        const grace = Math.min(2_000, Math.max(100, (leaseDurationMs - renewDeadlineMs) / 2));
        await Promise.race([manager.stop(), new Promise((r) => setTimeout(r, grace).unref())]);
        await ui?.stop();
        client.close();
        process.exit(ExitCode.Failed);
      }
      await ui?.stop();
      await manager.stop();
      client.close();
      io.stderr.write(`ripple manager: stopped (${ended})\n`);
      return ended === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Ok;
    },
  },
];
