// show resources: the objects of one kind in every registered cluster, in one table — `sveltosctl show resources`
// (which reads what health checks collected) answered live: each cluster is read through its kubeconfig Secret, as
// the controllers reach it.
import { stringify } from 'yaml';
import { clusterTypeOf, toEntry } from '../../clusters/index.js';
import { errorMessage, isKindNotInstalled, type KubeClient, type KubeObject } from '../../kube/index.js';
import { ExitCode, UsageError, oneOf, parseFlags, type Command, type CommandIO } from '../command.js';
import { table } from '../table.js';
import { clusterClient, connect, firstLine, listKind, parseClusterRef, runGuarded } from './get.js';

const USAGE = `Usage: ripple show resources --kind KIND [--group GROUP] [--version V] [-n NAMESPACE] [--cluster NS/NAME]
                             [--full] [--kubeconfig FILE] [--context CTX] [-o table|json|yaml]

Lists the objects of one kind in every cluster registered with the management cluster (SveltosClusters and
Cluster API Clusters), like \`sveltosctl show resources\`: cluster, group/version/kind,
namespace, name and a one-line state (the Ready/Available condition, or status.phase). Each cluster is read through
its kubeconfig Secret; a cluster that cannot be read shows as one line with the reason.

Flags:
  --kind KIND           the kind to list (required), e.g. Deployment
  --group GROUP         its API group (default: the core group ""), e.g. apps
  --version V           its API version (default v1)
  -n, --namespace NS    only this namespace in each cluster
  --cluster NS/NAME     only this cluster (namespace/name of its SveltosCluster or CAPI Cluster)
  --full                print the objects themselves (YAML, one document per object) instead of the table
  --kubeconfig FILE     kubeconfig of the management cluster (default: $KUBECONFIG, else ~/.kube/config)
  --context CTX         context to use from the kubeconfig
  -o, --output FORMAT   table (default), json or yaml (the rows)

Exit codes: 0 listed (also when nothing matches, or a cluster could not be read: see its line); 2 bad command line;
            3 unusable kubeconfig; 4 management cluster unreachable or Sveltos CRDs missing.

Examples:
  ripple show resources --kind Deployment --group apps -n kube-system
  ripple show resources --kind Service --cluster edge/edge --full
`;

/** ResourceRow is one object found in one cluster (or, without name, why a cluster could not be read). */
interface ResourceRow {
  cluster: string;
  gvk: string;
  namespace: string;
  name: string;
  message: string;
}

/** stateOf summarises an object's state in a line: a Ready/Available condition, else status.phase. */
function stateOf(o: KubeObject): string {
  const status = (o.status ?? {}) as { phase?: string; conditions?: { type?: string; status?: string; reason?: string; message?: string }[] };
  const cond = status.conditions?.find((c) => c.type === 'Ready') ?? status.conditions?.find((c) => c.type === 'Available');
  if (cond) return `${cond.type}=${cond.status}${cond.reason ? ` (${cond.reason})` : ''}${cond.message ? `: ${firstLine(cond.message, 80)}` : ''}`;
  return status.phase ?? '';
}

async function listEverywhere(
  mgmt: KubeClient,
  io: CommandIO,
  gvk: { apiVersion: string; kind: string },
  o: { namespace?: string; cluster?: { namespace: string; name: string } },
): Promise<{ rows: ResourceRow[]; objects: { cluster: string; object: KubeObject }[] }> {
  const LIB = 'lib.projectsveltos.io/v1beta1';
  const registered = [
    ...(await listKind(mgmt, io, { apiVersion: LIB, kind: 'SveltosCluster' }, { namespace: o.cluster?.namespace })),
    ...(await listKind(mgmt, io, { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster' }, { namespace: o.cluster?.namespace, optional: true })),
  ]
    .filter((c) => !o.cluster || c.metadata.name === o.cluster.name)
    .map((c) => toEntry(c, clusterTypeOf(c.apiVersion) ?? 'Sveltos'))
    .sort((a, b) => `${a.ref.namespace}/${a.ref.name}`.localeCompare(`${b.ref.namespace}/${b.ref.name}`));
  const label = `${gvk.apiVersion}, Kind=${gvk.kind}`;
  const results = await Promise.all(
    registered.map(async (e) => {
      const cluster = `${e.ref.namespace}/${e.ref.name}`;
      let client: KubeClient | undefined;
      try {
        client = await clusterClient(mgmt, e.type, e.ref.namespace, e.ref.name);
        const items = (await client.list<KubeObject>(gvk, { namespace: o.namespace })).items;
        return { cluster, items, error: '' };
      } catch (err) {
        if (isKindNotInstalled(err)) return { cluster, items: [], error: '' };
        return { cluster, items: [] as KubeObject[], error: `cannot read cluster ${cluster}: ${errorMessage(err)}` };
      } finally {
        client?.close();
      }
    }),
  );
  const rows: ResourceRow[] = [];
  const objects: { cluster: string; object: KubeObject }[] = [];
  for (const r of results) {
    if (r.error) rows.push({ cluster: r.cluster, gvk: label, namespace: '', name: '-', message: r.error });
    for (const obj of r.items.sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`))) {
      rows.push({ cluster: r.cluster, gvk: label, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name, message: stateOf(obj) });
      objects.push({ cluster: r.cluster, object: obj });
    }
  }
  return { rows, objects };
}

export const commands: Command[] = [
  {
    path: ['show', 'resources'],
    summary: 'Show the objects of one kind in every registered cluster (like sveltosctl show resources)',
    usage: USAGE,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        kind: { type: 'string' },
        group: { type: 'string' },
        version: { type: 'string' },
        namespace: { type: 'string', short: 'n' },
        cluster: { type: 'string' },
        full: { type: 'boolean' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        output: { type: 'string', short: 'o' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
      if (!values.kind) throw new UsageError('--kind is required (e.g. --kind Deployment --group apps)');
      const output = oneOf('--output', values.output ?? 'table', ['table', 'json', 'yaml']);
      const cluster = parseClusterRef(values.cluster);
      const apiVersion = values.group ? `${values.group}/${values.version ?? 'v1'}` : (values.version ?? 'v1');
      const client = connect(values, io);
      if (typeof client === 'number') return client;
      return runGuarded(client, async () => {
        const { rows, objects } = await listEverywhere(client, io, { apiVersion, kind: values.kind! }, { namespace: values.namespace, cluster });
        if (values.full) {
          for (const r of rows.filter((x) => x.name === '-')) io.stderr.write(`ripple: ${r.message}\n`);
          for (const { cluster: c, object } of objects) {
            // As kubectl prints objects: apiVersion and kind first, managedFields left out.
            const { apiVersion: av, kind: k, metadata, ...rest } = object;
            const { managedFields: _mf, ...meta } = metadata as KubeObject['metadata'] & { managedFields?: unknown };
            io.stdout.write(`---\n# cluster ${c}\n${stringify({ apiVersion: av, kind: k, metadata: meta, ...rest }, { lineWidth: 0 })}`);
          }
          return ExitCode.Ok;
        }
        if (output === 'json') io.stdout.write(JSON.stringify(rows, null, 2) + '\n');
        else if (output === 'yaml') io.stdout.write(stringify(rows, { lineWidth: 0 }));
        else if (rows.length === 0) io.stdout.write(`No ${values.kind} (${apiVersion}) in any registered cluster\n`);
        else io.stdout.write(table(['CLUSTER', 'GVK', 'NAMESPACE', 'NAME', 'MESSAGE'], rows.map((r) => [r.cluster, r.gvk, r.namespace, r.name, r.message])));
        return ExitCode.Ok;
      });
    },
  },
];
