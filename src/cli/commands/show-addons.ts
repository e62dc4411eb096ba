// show addons / show dryrun: what the add-on deployer reports in the management cluster, like `sveltosctl show`:
// per cluster and profile, each feature's state (from ClusterSummaries), and what a DryRun profile would change
// (from ClusterReports).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, KubeConfigError, isKindNotInstalled, isStatusError, isUnreachable, loadKubeConfig, type KubeObject } from '../../kube/index.js';
import { ExitCode, UsageError, parseFlags, type Command, type CommandIO } from '../command.js';

const COMMON_FLAGS = `  --kubeconfig FILE   kubeconfig of the management cluster (default: $KUBECONFIG, else ~/.kube/config)
  --context CTX       context to use from the kubeconfig
  --cluster NS/NAME   only this cluster (namespace/name of its SveltosCluster or CAPI Cluster)
  --profile NAME      only this ClusterProfile (or Profile)
  -o, --output FMT    table (default) or json

Exit codes: 0 listed (also when nothing matches); 2 bad command line; 3 unusable kubeconfig;
            4 management cluster unreachable, Sveltos CRDs missing, or the request was refused.`;

const ADDONS_USAGE = `Usage: ripple show addons [--cluster NS/NAME] [--profile NAME] [--kubeconfig FILE] [--context CTX] [-o table|json]

Lists, for every (cluster, profile) pair the add-on deployer works on, the state of each feature (Resources, Helm,
Kustomize): Provisioned, Provisioning, Failed (with the exact cause), FailedNonRetriable, Removing; when it last
applied something, and the kinds it deployed. Read from the ClusterSummaries of the management cluster.

Flags:
${COMMON_FLAGS}

Example:
  ripple show addons --cluster cluster-a/a
`;

const DRYRUN_USAGE = `Usage: ripple show dryrun [--cluster NS/NAME] [--profile NAME] [--kubeconfig FILE] [--context CTX] [-o table|json]

Lists what profiles in syncMode DryRun would do in each cluster — Create, Update (with a diff in -o json), Delete,
Conflict, No Action, Error per object — from the ClusterReports of the management cluster.

Flags:
${COMMON_FLAGS}

Example:
  ripple show dryrun --profile my-profile
`;

const CONFIG_API = 'config.projectsveltos.io/v1beta1';

type Summary = KubeObject & {
  spec?: { clusterNamespace?: string; clusterName?: string };
  status?: {
    dependencies?: string;
    featureSummaries?: { featureID: string; status?: string; failureMessage?: string; lastAppliedTime?: string; deployedGroupVersionKind?: string[] }[];
  };
};
type Report = KubeObject & {
  spec?: { clusterNamespace?: string; clusterName?: string };
  status?: { resourceReports?: { action?: string; message?: string; resource: { group?: string; version?: string; kind: string; namespace?: string; name: string } }[] };
};

interface Options {
  client: KubeClient;
  cluster?: { namespace: string; name: string };
  profile?: string;
  output: 'table' | 'json';
}

function parse(args: string[], io: CommandIO, usage: string): Options | number {
  const { values, positionals } = parseFlags(args, {
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    cluster: { type: 'string' },
    profile: { type: 'string' },
    output: { type: 'string', short: 'o' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(usage);
    return ExitCode.Ok;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const output = values.output ?? 'table';
  if (output !== 'table' && output !== 'json') throw new UsageError(`--output must be table or json, not ${JSON.stringify(output)}`);
  let cluster: Options['cluster'];
  if (values.cluster !== undefined) {
    const m = /^([^/]+)\/([^/]+)$/.exec(values.cluster);
    if (!m) throw new UsageError(`--cluster must be NAMESPACE/NAME, not ${JSON.stringify(values.cluster)}`);
    cluster = { namespace: m[1], name: m[2] };
  }
  const file = values.kubeconfig ?? process.env.KUBECONFIG?.split(':')[0] ?? join(homedir(), '.kube', 'config');
  try {
    return { client: new KubeClient(loadKubeConfig({ file, context: values.context })), cluster, profile: values.profile, output };
  } catch (err) {
    if (!(err instanceof KubeConfigError)) throw err;
    io.stderr.write(`ripple: management kubeconfig ${file}: ${err.message}\nPass --kubeconfig FILE (and --context CTX) for the management cluster.\n`);
    return ExitCode.BadInput;
  }
}

/** list reads the objects of a kind, filtered by cluster and profile label. */
async function list<T extends KubeObject>(o: Options, kind: string, io: CommandIO): Promise<T[] | number> {
  try {
    const items = (await o.client.list<T>({ apiVersion: CONFIG_API, kind }, { namespace: o.cluster?.namespace })).items;
    return items
      .filter((x) => !o.cluster || (x as Summary).spec?.clusterName === o.cluster.name)
      .filter((x) => !o.profile || profileOf(x) === o.profile)
      .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  } catch (err) {
    const where = `the management cluster (${o.client.server})`;
    if (isKindNotInstalled(err)) io.stderr.write(`ripple: ${where} does not serve ${kind} (${CONFIG_API}).\nInstall the CRDs first:  ripple manifests crds | kubectl apply -f -\n`);
    else if (isUnreachable(err)) io.stderr.write(`ripple: cannot reach ${where}: ${err.message}\nCheck --kubeconfig / --context.\n`);
    else if (isStatusError(err)) io.stderr.write(`ripple: ${where} refused to list ${kind} (${err.code} ${err.reason}): ${err.message}\n`);
    else throw err;
    return ExitCode.Unavailable;
  } finally {
    o.client.close();
  }
}

function profileOf(o: KubeObject): string {
  const l = o.metadata.labels ?? {};
  return l['projectsveltos.io/cluster-profile-name'] ?? l['projectsveltos.io/profile-name'] ?? '';
}

function profileKindOf(o: KubeObject): string {
  return o.metadata.labels?.['projectsveltos.io/cluster-profile-name'] !== undefined ? 'ClusterProfile' : 'Profile';
}

function key(o: KubeObject): string {
  const s = (o as Summary).spec;
  return `${s?.clusterNamespace}/${s?.clusterName}|${profileOf(o)}`;
}

/** table renders rows as aligned columns (the last column is not padded). */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('   ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

const firstLine = (s: string | undefined, max = 100) => {
  const l = (s ?? '').split('\n')[0];
  return l.length > max ? `${l.slice(0, max - 1)}…` : l;
};

export const commands: Command[] = [
  {
    path: ['show', 'addons'],
    summary: 'Show, per cluster and profile, the state of each add-on feature (from ClusterSummaries)',
    usage: ADDONS_USAGE,
    async run(args, io) {
      const o = parse(args, io, ADDONS_USAGE);
      if (typeof o === 'number') return o;
      const items = await list<Summary>(o, 'ClusterSummary', io);
      if (typeof items === 'number') return items;
      const rows = items.flatMap((s) =>
        (s.status?.featureSummaries?.length ? s.status.featureSummaries : [{ featureID: '-', status: 'Pending' }]).map((f) => ({
          cluster: `${s.spec?.clusterNamespace}/${s.spec?.clusterName}`,
          profile: `${profileKindOf(s)}/${profileOf(s)}`,
          feature: f.featureID,
          status: f.status ?? '',
          lastApplied: 'lastAppliedTime' in f ? (f.lastAppliedTime ?? '') : '',
          deployed: 'deployedGroupVersionKind' in f ? (f.deployedGroupVersionKind ?? []) : [],
          message: ('failureMessage' in f ? f.failureMessage : undefined) ?? (s.status?.dependencies?.includes('not') ? s.status.dependencies : ''),
        })),
      );
      if (o.output === 'json') {
        io.stdout.write(JSON.stringify(rows, null, 2) + '\n');
        return ExitCode.Ok;
      }
      if (rows.length === 0) {
        io.stdout.write('No add-ons: no ClusterSummary matches (is a ClusterProfile selecting any ready cluster?)\n');
        return ExitCode.Ok;
      }
      io.stdout.write(
        table(
          ['CLUSTER', 'PROFILE', 'FEATURE', 'STATUS', 'LAST APPLIED', 'KINDS', 'MESSAGE'],
          rows.map((r) => [r.cluster, r.profile, r.feature, r.status, r.lastApplied, String(r.deployed.length), firstLine(r.message)]),
        ),
      );
      return ExitCode.Ok;
    },
  },
  {
    path: ['show', 'dryrun'],
    summary: 'Show what DryRun profiles would change in each cluster (from ClusterReports)',
    usage: DRYRUN_USAGE,
    async run(args, io) {
      const o = parse(args, io, DRYRUN_USAGE);
      if (typeof o === 'number') return o;
      const items = await list<Report>(o, 'ClusterReport', io);
      if (typeof items === 'number') return items;
      const rows = items.flatMap((r) =>
        (r.status?.resourceReports ?? []).map((x) => ({
          cluster: `${r.spec?.clusterNamespace}/${r.spec?.clusterName}`,
          profile: `${profileKindOf(r)}/${profileOf(r)}`,
          action: x.action ?? '',
          resource: `${x.resource.kind}${x.resource.group ? `.${x.resource.group}` : ''} ${x.resource.namespace ? `${x.resource.namespace}/` : ''}${x.resource.name}`,
          message: x.message ?? '',
        })),
      );
      if (o.output === 'json') {
        io.stdout.write(JSON.stringify(rows, null, 2) + '\n');
        return ExitCode.Ok;
      }
      if (rows.length === 0) {
        io.stdout.write('No DryRun reports: no profile in syncMode DryRun has evaluated a cluster yet\n');
        return ExitCode.Ok;
      }
      io.stdout.write(
        table(
          ['CLUSTER', 'PROFILE', 'ACTION', 'RESOURCE', 'MESSAGE'],
          rows.map((r) => [r.cluster, r.profile, r.action, r.resource, r.action === 'Update' ? '(diff: -o json)' : firstLine(r.message)]),
        ),
      );
      return ExitCode.Ok;
    },
  },
];
