// show addons / show dryrun: what the add-on deployer reports in the management cluster, like `sveltosctl show`:
// per cluster and profile, each feature's state (from ClusterSummaries; the same as `ripple get addons --features`,
// whose code it shares), and what a DryRun profile would change (from ClusterReports).
import type { KubeClient } from '../../kube/index.js';
import { ExitCode, UsageError, oneOf, parseFlags, type Command, type CommandIO } from '../command.js';
import { table } from '../table.js';
import { connect, featureRows, firstLine, listSummaries, parseClusterRef, printFeatures, profileOf, runGuarded, type SummaryObject } from './get.js';

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
Same as \`ripple get addons --features\`; \`ripple get addons\` lists every deployed object instead.

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

type Report = SummaryObject & {
  status?: { resourceReports?: { action?: string; message?: string; resource: { group?: string; version?: string; kind: string; namespace?: string; name: string } }[] };
};

interface Options {
  client: KubeClient;
  cluster?: { namespace: string; name: string };
  profile?: string;
  output: 'table' | 'json';
}

function parse(args: string[], io: CommandIO): Options | number {
  const { values, positionals } = parseFlags(args, {
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    cluster: { type: 'string' },
    profile: { type: 'string' },
    output: { type: 'string', short: 'o' },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const output = oneOf('--output', values.output ?? 'table', ['table', 'json']);
  const cluster = parseClusterRef(values.cluster);
  const client = connect(values, io);
  if (typeof client === 'number') return client;
  return { client, cluster, profile: values.profile, output };
}

export const commands: Command[] = [
  {
    path: ['show', 'addons'],
    summary: 'Show, per cluster and profile, the state of each add-on feature (from ClusterSummaries)',
    usage: ADDONS_USAGE,
    async run(args, io) {
      const o = parse(args, io);
      if (typeof o === 'number') return o;
      return runGuarded(o.client, async () => {
        printFeatures(featureRows(await listSummaries({ ...o, io })), o.output, io);
        return ExitCode.Ok;
      });
    },
  },
  {
    path: ['show', 'dryrun'],
    summary: 'Show what DryRun profiles would change in each cluster (from ClusterReports)',
    usage: DRYRUN_USAGE,
    async run(args, io) {
      const o = parse(args, io);
      if (typeof o === 'number') return o;
      return runGuarded(o.client, async () => {
        const items = await listSummaries<Report>({ ...o, io }, 'ClusterReport');
        const rows = items.flatMap((r) =>
          (r.status?.resourceReports ?? []).map((x) => ({
            cluster: `${r.spec?.clusterNamespace}/${r.spec?.clusterName}`,
            profile: `${profileOf(r).kind}/${profileOf(r).name}`,
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
      });
    },
  },
];
