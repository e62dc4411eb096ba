// show addons / show dryrun: what the add-on deployer reports in the management cluster, like `sveltosctl show`:
// per cluster and profile, each feature's state (from ClusterSummaries; the same as `ripple get addons --features`,
// whose code it shares), and what a DryRun profile would change (from ClusterReports).
import type { KubeClient } from '../../kube/index.js';
import { ExitCode, UsageError, oneOf, parseFlags, type Command, type CommandIO } from '../command.js';
import { table } from '../table.js';
import { FEATURE_TABLE, connect, featureRows, firstLine, listSummaries, parseClusterRef, printFeatures, profileOf, runGuarded, watchRows, type SummaryObject } from './get.js';

const COMMON_FLAGS = `  --kubeconfig FILE   kubeconfig of the management cluster (default: $KUBECONFIG, else ~/.kube/config)
  --context CTX       context to use from the kubeconfig
  --cluster NS/NAME   only this cluster (namespace/name of its SveltosCluster or CAPI Cluster)
  --profile NAME      only this ClusterProfile (or Profile)
  -o, --output FMT    table (default) or json
  -w, --watch         after the listing, print every row that appears, changes or goes (in its last state) as it
                      happens, until Ctrl-C (-o json: one row per line)

Exit codes: 0 listed (also when nothing matches), or -w stopped by SIGTERM; 2 bad command line; 3 unusable kubeconfig;
            4 management cluster unreachable, Sveltos CRDs missing, or the request was refused.`;

const ADDONS_USAGE = `Usage: ripple show addons [--cluster NS/NAME] [--profile NAME] [--kubeconfig FILE] [--context CTX] [-o table|json] [-w]

Lists, for every (cluster, profile) pair the add-on deployer works on, the state of each feature (Resources, Helm,
Kustomize): Provisioned, Provisioning, Failed (with the exact cause), FailedNonRetriable, Removing; when it last
applied something, and the kinds it deployed. Read from the ClusterSummaries of the management cluster.
Same as \`ripple get addons --features\`; \`ripple get addons\` lists every deployed object instead.

Flags:
${COMMON_FLAGS}

Example:
  ripple show addons --cluster cluster-a/a
`;

const DRYRUN_USAGE = `Usage: ripple show dryrun [--cluster NS/NAME] [--profile NAME] [--kubeconfig FILE] [--context CTX] [-o table|json] [-w]

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

/** DryRunRow is one object of a ClusterReport: what a DryRun profile would do to it. */
interface DryRunRow {
  cluster: string;
  profile: string;
  action: string;
  resource: string;
  message: string;
}

const DRYRUN_HEADER = ['CLUSTER', 'PROFILE', 'ACTION', 'RESOURCE', 'MESSAGE'];
const NO_DRYRUN = 'No DryRun reports: no profile in syncMode DryRun has evaluated a cluster yet';
const dryRunCells = (r: DryRunRow) => [r.cluster, r.profile, r.action, r.resource, r.action === 'Update' ? '(diff: -o json)' : firstLine(r.message)];

function dryRunRows(items: readonly Report[]): DryRunRow[] {
  return items.flatMap((r) =>
    (r.status?.resourceReports ?? []).map((x) => ({
      cluster: `${r.spec?.clusterNamespace}/${r.spec?.clusterName}`,
      profile: `${profileOf(r).kind}/${profileOf(r).name}`,
      action: x.action ?? '',
      resource: `${x.resource.kind}${x.resource.group ? `.${x.resource.group}` : ''} ${x.resource.namespace ? `${x.resource.namespace}/` : ''}${x.resource.name}`,
      message: x.message ?? '',
    })),
  );
}

interface Options {
  client: KubeClient;
  cluster?: { namespace: string; name: string };
  profile?: string;
  output: 'table' | 'json';
  watch: boolean;
}

function parse(args: string[], io: CommandIO): Options | number {
  const { values, positionals } = parseFlags(args, {
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    cluster: { type: 'string' },
    profile: { type: 'string' },
    output: { type: 'string', short: 'o' },
    watch: { type: 'boolean', short: 'w' },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const output = oneOf('--output', values.output ?? 'table', ['table', 'json']);
  const cluster = parseClusterRef(values.cluster);
  const client = connect(values, io);
  if (typeof client === 'number') return client;
  return { client, cluster, profile: values.profile, output, watch: values.watch === true };
}

export const commands: Command[] = [
  {
    path: ['show', 'addons'],
    summary: 'Show, per cluster and profile, the state of each add-on feature (from ClusterSummaries)',
    usage: ADDONS_USAGE,
    async run(args, io) {
      const o = parse(args, io);
      if (typeof o === 'number') return o;
      if (o.watch) {
        const kinds = [{ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary' }];
        return runGuarded(o.client, () => watchRows(o.client, io, { ...FEATURE_TABLE, kinds, output: o.output, load: async () => featureRows(await listSummaries({ ...o, io })) }));
      }
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
      const load = async () => dryRunRows(await listSummaries<Report>({ ...o, io }, 'ClusterReport'));
      if (o.watch) {
        const kinds = [{ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterReport' }];
        return runGuarded(o.client, () =>
          watchRows(o.client, io, { kinds, output: o.output, load, key: (r) => `${r.cluster}|${r.profile}|${r.resource}`, header: DRYRUN_HEADER, cells: dryRunCells, empty: NO_DRYRUN }),
        );
      }
      return runGuarded(o.client, async () => {
        const rows = await load();
        if (o.output === 'json') {
          io.stdout.write(JSON.stringify(rows, null, 2) + '\n');
          return ExitCode.Ok;
        }
        if (rows.length === 0) {
          io.stdout.write(`${NO_DRYRUN}\n`);
          return ExitCode.Ok;
        }
        io.stdout.write(table(DRYRUN_HEADER, rows.map(dryRunCells)));
        return ExitCode.Ok;
      });
    },
  },
];
