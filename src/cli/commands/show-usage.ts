// show usage: which profiles and triggers use which ConfigMaps, Secrets, Helm charts and Kustomize sources, and in
// how many clusters — `sveltosctl show usage`, extended to EventTriggers (whose references are templates until an
// event instantiates them, so they are shown as written).
import { stringify } from 'yaml';
import type { KubeObject } from '../../kube/index.js';
import { ExitCode, UsageError, oneOf, parseFlags, type Command } from '../command.js';
import { table } from '../table.js';
import { connect, listKind, runGuarded, watchRows } from './get.js';

const CONFIG = 'config.projectsveltos.io/v1beta1';
const LIB = 'lib.projectsveltos.io/v1beta1';

const USAGE = `Usage: ripple show usage [--kind KIND] [--namespace NS] [--name NAME] [--kubeconfig FILE] [--context CTX]
                         [-o table|json|yaml] [-w]

Lists every ConfigMap, Secret, Helm chart and Kustomize source (Flux GitRepository/OCIRepository/Bucket) that a
ClusterProfile, Profile or EventTrigger references — policyRefs, helmCharts (and their valuesFrom),
kustomizationRefs (and valuesFrom), configMapGenerator/secretGenerator — with who uses it and the clusters the
profiles match, like \`sveltosctl show usage\`. Before a change to a ConfigMap, it says where it will land.
Names in EventTriggers may be templates ({{ .Cluster.metadata.name }}…), shown as written; a namespace left empty
means the cluster's own namespace (shown as "(cluster namespace)").

Flags:
  --kind KIND           only references of this kind: ConfigMap, Secret, HelmChart, GitRepository, OCIRepository, Bucket
  --namespace NS        only references in this namespace
  --name NAME           only references with this name
  --kubeconfig FILE     kubeconfig of the management cluster (default: $KUBECONFIG, else ~/.kube/config)
  --context CTX         context to use from the kubeconfig
  -o, --output FORMAT   table (default), json or yaml
  -w, --watch           after the listing, print every row that appears, changes or goes (in its last state) as it
                        happens, until Ctrl-C (-o json: one row per line)

Exit codes: 0 listed (also when nothing matches), or -w stopped by SIGTERM; 2 bad command line; 3 unusable kubeconfig;
            4 management cluster unreachable or Sveltos CRDs missing.

Example:
  ripple show usage --kind ConfigMap --namespace default
`;

/** UsageRow is one referenced source with everything that uses it. */
export interface UsageRow {
  kind: string;
  namespace: string;
  name: string;
  /** `ClusterProfile/x (policyRefs)`, `EventTrigger/y (helmCharts.valuesFrom)`. */
  usedBy: string[];
  /** The clusters of the profiles that use it (namespace/name), from their status. */
  clusters: string[];
}

type Ref = { kind?: string; namespace?: string; name?: string };
type Spec = {
  policyRefs?: Ref[];
  helmCharts?: { repositoryURL?: string; repositoryName?: string; chartName?: string; chartVersion?: string; valuesFrom?: Ref[] }[];
  kustomizationRefs?: (Ref & { valuesFrom?: Ref[] })[];
  configMapGenerator?: Ref[];
  secretGenerator?: Ref[];
};

/** references lists what one profile or trigger spec refers to, with the field it is referred from. */
export function references(spec: Spec): { kind: string; namespace: string; name: string; field: string }[] {
  const out: { kind: string; namespace: string; name: string; field: string }[] = [];
  const add = (r: Ref, field: string, kind = r.kind ?? '') => out.push({ kind, namespace: r.namespace ?? '', name: r.name ?? '', field });
  for (const r of spec.policyRefs ?? []) add(r, 'policyRefs');
  for (const h of spec.helmCharts ?? []) {
    const chart = `${h.repositoryURL ?? h.repositoryName ?? ''}${h.repositoryURL?.endsWith('/') ? '' : '/'}${h.chartName ?? ''}${h.chartVersion ? `@${h.chartVersion}` : ''}`;
    out.push({ kind: 'HelmChart', namespace: '', name: chart, field: 'helmCharts' });
    for (const v of h.valuesFrom ?? []) add(v, 'helmCharts.valuesFrom');
  }
  for (const k of spec.kustomizationRefs ?? []) {
    add(k, 'kustomizationRefs');
    for (const v of k.valuesFrom ?? []) add(v, 'kustomizationRefs.valuesFrom');
  }
  for (const g of spec.configMapGenerator ?? []) add(g, 'configMapGenerator', 'ConfigMap');
  for (const g of spec.secretGenerator ?? []) add(g, 'secretGenerator', 'Secret');
  return out;
}

/** usageRows groups the references of profiles and triggers by what they reference. */
export function usageRows(users: readonly KubeObject[]): UsageRow[] {
  const rows = new Map<string, UsageRow>();
  for (const u of users) {
    const status = (u.status ?? {}) as { matchingClusters?: { namespace?: string; name?: string }[] };
    const clusters = u.kind === 'EventTrigger' ? [] : (status.matchingClusters ?? []).map((c) => `${c.namespace ?? ''}/${c.name ?? ''}`);
    const who = `${u.kind}/${u.metadata.namespace ? `${u.metadata.namespace}/` : ''}${u.metadata.name}`;
    for (const r of references((u.spec ?? {}) as Spec)) {
      // A Profile's references without a namespace are in its own namespace; a ClusterProfile's or trigger's are
      // resolved per cluster.
      const namespace = r.namespace || (u.kind === 'Profile' ? (u.metadata.namespace ?? '') : r.kind === 'HelmChart' ? '' : '(cluster namespace)');
      const key = `${r.kind}|${namespace}|${r.name}`;
      const row = rows.get(key) ?? { kind: r.kind, namespace, name: r.name, usedBy: [], clusters: [] };
      const label = `${who} (${r.field})`;
      if (!row.usedBy.includes(label)) row.usedBy.push(label);
      for (const c of clusters) if (!row.clusters.includes(c)) row.clusters.push(c);
      rows.set(key, row);
    }
  }
  return [...rows.values()]
    .map((r) => ({ ...r, usedBy: r.usedBy.sort(), clusters: r.clusters.sort() }))
    .sort((a, b) => `${a.kind}|${a.namespace}|${a.name}`.localeCompare(`${b.kind}|${b.namespace}|${b.name}`));
}

const HEADER = ['KIND', 'NAMESPACE', 'NAME', 'USED BY', 'CLUSTERS'];
const NO_USAGE = 'No profile or trigger references a ConfigMap, Secret, chart or Kustomize source';
const usageCells = (r: UsageRow) => [r.kind, r.namespace, r.name, r.usedBy.join(', '), r.clusters.join(', ') || '-'];

export const commands: Command[] = [
  {
    path: ['show', 'usage'],
    summary: 'Show which profiles and triggers use which ConfigMaps, Secrets, Helm charts and Kustomize sources',
    usage: USAGE,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        kind: { type: 'string' },
        namespace: { type: 'string' },
        name: { type: 'string' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        output: { type: 'string', short: 'o' },
        watch: { type: 'boolean', short: 'w' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
      const output = oneOf('--output', values.output ?? 'table', ['table', 'json', 'yaml']);
      const kind = values.kind === undefined ? undefined : oneOf('--kind', values.kind, ['ConfigMap', 'Secret', 'HelmChart', 'GitRepository', 'OCIRepository', 'Bucket']);
      const client = connect(values, io);
      if (typeof client === 'number') return client;
      const load = async () => {
        const users = [
          ...(await listKind(client, io, { apiVersion: CONFIG, kind: 'ClusterProfile' })),
          ...(await listKind(client, io, { apiVersion: CONFIG, kind: 'Profile' })),
          ...(await listKind(client, io, { apiVersion: LIB, kind: 'EventTrigger' })),
        ];
        return usageRows(users).filter(
          (r) => (!kind || r.kind === kind) && (values.namespace === undefined || r.namespace === values.namespace) && (values.name === undefined || r.name === values.name),
        );
      };
      if (values.watch) {
        const kinds = [
          { apiVersion: CONFIG, kind: 'ClusterProfile' },
          { apiVersion: CONFIG, kind: 'Profile' },
          { apiVersion: LIB, kind: 'EventTrigger' },
        ];
        return runGuarded(client, () => watchRows(client, io, { kinds, output, load, key: (r) => `${r.kind}|${r.namespace}|${r.name}`, header: HEADER, cells: usageCells, empty: NO_USAGE }));
      }
      return runGuarded(client, async () => {
        const rows = await load();
        if (output === 'json') io.stdout.write(JSON.stringify(rows, null, 2) + '\n');
        else if (output === 'yaml') io.stdout.write(stringify(rows, { lineWidth: 0 }));
        else if (rows.length === 0) io.stdout.write(`${NO_USAGE}\n`);
        else io.stdout.write(table(HEADER, rows.map(usageCells)));
        return ExitCode.Ok;
      });
    },
  },
];
