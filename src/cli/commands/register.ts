// register cluster: registers a cluster with the management cluster as a SveltosCluster (namespace, kubeconfig
// Secret, SveltosCluster with labels), like `sveltosctl register cluster`. Idempotent.
import { KubeConfig } from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseLabels, registerCluster, registerPullModeCluster, validateRegistration } from '../../clusters/index.js';
import {
  KubeClient,
  KubeConfigError,
  errorMessage,
  flattenKubeConfig,
  isKindNotInstalled,
  isStatusError,
  isUnreachable,
  kubeConfigYaml,
  loadKubeConfig,
} from '../../kube/index.js';
import { ExitCode, UsageError, parseFlags, type Command } from '../command.js';

const USAGE = `Usage: ripple register cluster --namespace NS --name NAME --kubeconfig FILE [--context CTX]
                               [--labels k=v,...] [--mgmt-kubeconfig FILE] [--mgmt-context CTX]
       ripple register cluster --namespace NS --name NAME --pull-mode [--labels k=v,...] [--mgmt-kubeconfig FILE]

Registers a Kubernetes cluster with the management cluster so that EventTriggers and ClusterProfiles can select it.
In the management cluster it creates (or updates):
  - the namespace NS,
  - Secret NS/NAME-sveltos-kubeconfig holding the cluster's kubeconfig under key "kubeconfig" (the context you pick,
    flattened: certificate files are inlined, other contexts dropped),
  - SveltosCluster NS/NAME (lib.projectsveltos.io/v1beta1) with the given labels.
Running it again updates what changed and reports "unchanged" for the rest. Labels are merged into existing ones.
To make the management cluster itself a target, register it as --namespace mgmt --name mgmt.

With --pull-mode the SveltosCluster gets spec.pullMode: true and no kubeconfig Secret: the management cluster never
connects to the cluster; run \`ripple agent --pull\` there (the command prints how, with its scoped credential).

Flags:
  --namespace NS           namespace of the SveltosCluster in the management cluster        (required)
  --name NAME              name of the SveltosCluster                                        (required)
  --kubeconfig FILE        kubeconfig of the cluster to register                             (required)
  --context CTX            context to use from --kubeconfig (default: its current context)
  --labels k=v,...         labels for the SveltosCluster (used by clusterSelector)
  --pull-mode              register for pull mode (no --kubeconfig; the cluster's agent pulls its configuration)
  --mgmt-kubeconfig FILE   kubeconfig of the management cluster (default: $KUBECONFIG, else ~/.kube/config)
  --mgmt-context CTX       context to use from the management kubeconfig

Exit codes: 0 registered; 2 bad command line; 3 unusable kubeconfig, name or label;
            4 management cluster unreachable, Sveltos CRDs missing, or the API server refused a write.

Example:
  ripple register cluster --namespace fleet --name edge-1 --kubeconfig edge-1.yaml --labels env=prod,region=eu
  kubectl get sveltoscluster -n fleet edge-1
`;

/** defaultMgmtKubeconfig finds the management kubeconfig the way kubectl does ($KUBECONFIG, then ~/.kube/config). */
function defaultMgmtKubeconfig(): KubeConfig | undefined {
  const env = process.env.KUBECONFIG;
  const home = join(homedir(), '.kube', 'config');
  if (!env && !existsSync(home)) return undefined;
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return kc;
}

async function registerPull(
  io: { stdout: NodeJS.WritableStream },
  o: { namespace: string; name: string; labels: Record<string, string>; mgmtKubeconfig?: string; mgmtContext?: string },
  fail: (code: number, msg: string) => number,
): Promise<number> {
  let mgmt: KubeClient;
  try {
    let kc: KubeConfig | undefined;
    if (o.mgmtKubeconfig) kc = loadKubeConfig({ file: o.mgmtKubeconfig, context: o.mgmtContext });
    else {
      kc = defaultMgmtKubeconfig();
      if (!kc) throw new UsageError('no management cluster kubeconfig: pass --mgmt-kubeconfig FILE or set KUBECONFIG');
      kc = loadKubeConfig({ kubeConfig: kc, context: o.mgmtContext });
    }
    mgmt = new KubeClient(kc);
  } catch (err) {
    if (err instanceof KubeConfigError) return fail(ExitCode.BadInput, `management kubeconfig: ${err.message}`);
    throw err;
  }
  try {
    const actions = await registerPullModeCluster(mgmt, { namespace: o.namespace, name: o.name, labels: o.labels });
    for (const a of actions) io.stdout.write(`${a.object} ${a.result}\n`);
  } catch (err) {
    if (isKindNotInstalled(err)) return fail(ExitCode.Unavailable, 'the management cluster does not serve SveltosCluster; install the CRDs first:  ripple manifests crds | kubectl apply -f -');
    if (isUnreachable(err)) return fail(ExitCode.Unavailable, `cannot reach the management cluster: ${err.message}\nCheck --mgmt-kubeconfig / --mgmt-context.`);
    if (isStatusError(err)) return fail(ExitCode.Unavailable, `the management cluster refused the request (${err.code} ${err.reason}): ${err.message}`);
    return fail(ExitCode.BadInput, errorMessage(err));
  } finally {
    mgmt.close();
  }
  io.stdout.write(
    `Next: give the cluster's agent its management credential and start it in the cluster:\n` +
      `  ripple agent rbac --pull --cluster-namespace ${o.namespace} --cluster-name ${o.name} | kubectl apply -f -\n` +
      `  kubectl -n ${o.namespace} create token ripple-agent-${o.name} --duration 8760h   # into the agent's --mgmt-kubeconfig\n` +
      `  ripple agent --pull --cluster-namespace ${o.namespace} --cluster-name ${o.name} --mgmt-kubeconfig FILE\n`,
  );
  return ExitCode.Ok;
}

export const commands: Command[] = [
  {
    path: ['register', 'cluster'],
    summary: 'Register a cluster with the management cluster (kubeconfig Secret + SveltosCluster)',
    usage: USAGE,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        namespace: { type: 'string', short: 'n' },
        name: { type: 'string' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        labels: { type: 'string' },
        'mgmt-kubeconfig': { type: 'string' },
        'mgmt-context': { type: 'string' },
        'pull-mode': { type: 'boolean' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
      const pullMode = values['pull-mode'] === true;
      if (pullMode && values.kubeconfig) throw new UsageError('--pull-mode takes no --kubeconfig: the management cluster never connects to a pull-mode cluster');
      const missing = (pullMode ? (['namespace', 'name'] as const) : (['namespace', 'name', 'kubeconfig'] as const)).filter((f) => !values[f]);
      if (missing.length > 0) throw new UsageError(`missing ${missing.map((f) => `--${f}`).join(', ')}`);
      const namespace = values.namespace!;
      const name = values.name!;
      const fail = (code: number, msg: string) => {
        io.stderr.write(`ripple register cluster: ${msg}\n`);
        return code;
      };

      let labels: Record<string, string> = {};
      try {
        labels = values.labels ? parseLabels(values.labels) : {};
      } catch (err) {
        return fail(ExitCode.BadInput, `--labels: ${errorMessage(err)}`);
      }
      const problems = validateRegistration({ namespace, name, labels });
      if (problems.length > 0) return fail(ExitCode.BadInput, problems.join('\n'));

      if (pullMode) return registerPull(io, { namespace, name, labels, mgmtKubeconfig: values['mgmt-kubeconfig'], mgmtContext: values['mgmt-context'] }, fail);

      // The managed cluster's kubeconfig, flattened so it works from inside the management cluster.
      let managedYaml: string;
      let managed: KubeClient;
      try {
        const kc = loadKubeConfig({ file: values.kubeconfig!, context: values.context });
        managedYaml = kubeConfigYaml(flattenKubeConfig(kc));
        managed = new KubeClient(loadKubeConfig({ yaml: managedYaml }));
      } catch (err) {
        if (err instanceof KubeConfigError) return fail(ExitCode.BadInput, `--kubeconfig ${values.kubeconfig}: ${err.message}`);
        throw err;
      }

      let mgmt: KubeClient;
      try {
        let kc: KubeConfig | undefined;
        if (values['mgmt-kubeconfig']) kc = loadKubeConfig({ file: values['mgmt-kubeconfig'], context: values['mgmt-context'] });
        else {
          kc = defaultMgmtKubeconfig();
          if (!kc) throw new UsageError('no management cluster kubeconfig: pass --mgmt-kubeconfig FILE or set KUBECONFIG');
          kc = loadKubeConfig({ kubeConfig: kc, context: values['mgmt-context'] });
        }
        mgmt = new KubeClient(kc);
      } catch (err) {
        managed.close();
        if (err instanceof KubeConfigError) return fail(ExitCode.BadInput, `management kubeconfig: ${err.message}`);
        throw err;
      }

      try {
        const actions = await registerCluster(mgmt, { namespace, name, kubeconfig: managedYaml, labels });
        for (const a of actions) io.stdout.write(`${a.object} ${a.result}\n`);
      } catch (err) {
        managed.close();
        mgmt.close();
        if (isKindNotInstalled(err)) {
          return fail(
            ExitCode.Unavailable,
            `the management cluster (${mgmt.server}) does not serve SveltosCluster (lib.projectsveltos.io/v1beta1).\n` +
              'Install the CRDs first:  ripple manifests crds | kubectl apply -f -',
          );
        }
        if (isUnreachable(err)) return fail(ExitCode.Unavailable, `cannot reach the management cluster: ${err.message}\nCheck --mgmt-kubeconfig / --mgmt-context.`);
        if (isStatusError(err)) return fail(ExitCode.Unavailable, `the management cluster refused the request (${err.code} ${err.reason}): ${err.message}`);
        throw err;
      }

      // Not required (the manager probes from where it runs), but tells the user early about a bad kubeconfig.
      try {
        const v = await managed.version({ timeoutMs: 5000 });
        io.stdout.write(`cluster ${name} is reachable from here (Kubernetes ${v.gitVersion})\n`);
      } catch (err) {
        io.stdout.write(`warning: cluster ${name} is not reachable from here: ${errorMessage(err)}\n` + '  (the ripple manager probes it from the management cluster; fix the kubeconfig if it cannot reach it either)\n');
      } finally {
        managed.close();
        mgmt.close();
      }
      const selector = Object.entries(labels).map(([k, v]) => `${k}: ${v}`).join(', ');
      io.stdout.write(
        [
          '',
          'Next:',
          `  kubectl get sveltoscluster -n ${namespace} ${name}   # READY turns true once the ripple manager has probed it`,
          selector
            ? `  select it from an EventTrigger or ClusterProfile with  clusterSelector: {matchLabels: {${selector}}}`
            : `  add labels (--labels k=v) to select it with a clusterSelector, or reference it in clusterRefs`,
          '',
        ].join('\n'),
      );
      return ExitCode.Ok;
    },
  },
];
