// render: the offline preview — what the agent would match, what the event manager would generate and what the
// add-on deployer would deploy to each cluster, for given EventTriggers/EventSources/ConfigMaps/profiles, sample
// resources and clusters, through the controllers' own functions (src/preview), without any server.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { isDNS1123Label } from '../../api/index.js';
import type { FuncOptions } from '../../funcs/index.js';
import type { KubeObject } from '../../kube/index.js';
import { createLuaRuntime } from '../../lua/index.js';
import { PREVIEW_COLUMNS, formatDiagnostics, formatJson, formatSummary, formatYaml, previewRows, runPreview, type PreviewResult, type PreviewSource } from '../../preview/index.js';
import { ExitCode, UsageError, parseFlags, type Command, type CommandIO } from '../command.js';
import { table } from '../table.js';

const USAGE = `Usage:
  ripple render -f FILE... [--resource FILE]... [--cluster NAME[:K=V,...]]... [--cluster-object FILE]...
                [--mgmt-resource FILE]... [--source NAME=DIR]... [-o yaml|json|table]

Shows, offline, exactly what Ripple would do with the given objects — nothing is contacted:
  1. match:    which --resource objects each EventTrigger's EventSource matches in each cluster its
               sourceClusterSelector selects (the agent's matcher: label filters, selectors, Lua, CEL,
               aggregatedSelection) and the EventReport it would write;
  2. generate: the instantiated ConfigMaps/Secrets and ClusterProfiles the event manager would write in the
               management cluster, with their names and labels (templates rendered with .Resource, .Cluster, …);
  3. deploy:   for every ClusterProfile/Profile — given with -f, generated, or deployed into the management cluster
               by another profile (followed, as the deployer would) — the objects applied to each selected cluster,
               with Sveltos' stamps, Local (management cluster) or Remote (the cluster), create / update / adopt,
               namespaces created, conflicts.
The same functions as the controllers do the work, so errors read as the controllers would report them.

Flags:
  -f, --file FILE          YAML (or JSON) of the management cluster: EventTriggers/EventBasedAddOns, EventSources,
                           the ConfigMaps/Secrets they reference, ClusterProfiles/Profiles, ClusterSets, CRDs, and
                           SveltosClusters/Cluster API Clusters to preview for. Repeatable; "-" reads stdin.
  --resource FILE          sample resources; they exist in every cluster an EventTrigger watches. Give them as the
                           live cluster has them: fields the API server fills in (a Service's nodePort, …) are
                           missing otherwise, and templates reading them fail as they would in Sveltos. Repeatable.
  --cluster NAME[:K=V,...] a ready cluster with these labels: SveltosCluster NAME in namespace NAME (as \`ripple up\`
                           registers clusters; NAMESPACE/NAME for another namespace, \`mgmt\` is the management
                           cluster). Its labels are added to a SveltosCluster of the same name given with -f.
                           Repeatable.
  --cluster-object FILE    full SveltosCluster / Cluster API Cluster objects (labels, spec, status; an object
                           without status is taken as ready). Repeatable.
  --mgmt-resource FILE     objects of the management cluster that templateResourceRefs read, as they are live (with
                           their status); they take the place of an object the preview deploys under the same name.
                           Repeatable.
  --source NAME=DIR        a local directory standing in for a GitOps source, so kustomizationRefs and policyRefs of
                           kind GitRepository / OCIRepository / Bucket are previewed without downloading anything:
                           DIR holds what the source's artifact would (a checkout of the repository). NAME is
                           KIND/NAMESPACE/NAME or NAMESPACE/NAME (any Flux kind); a ConfigMap/Secret NAME makes DIR
                           stand in for its kustomize.tar.gz. kustomizationRefs are built with Ripple's Kustomize
                           (as \`kubectl kustomize\` would), with path, components, values/valuesFrom and
                           targetNamespace applied. Repeatable.
  --labels K=V,...         labels of the only --cluster (same as NAME:K=V,...)
  -o, --output FORMAT      yaml (default: every generated and deployed object, each after a comment saying where
                           it goes and why), table (one line per object), or json (everything, with the matches)

Notes, errors and a summary go to stderr. A CustomResourceDefinition given anywhere is taken as installed in every
cluster; Kubernetes' built-in kinds and Sveltos' kinds are known.

Exit status: 0 when everything would work; 3 when anything would fail — a template error (with the template name,
line and column), invalid YAML after rendering, a missing ConfigMap/Secret/EventSource/templateResourceRefs object,
a trigger or profile selecting no cluster, a conflict — or a file cannot be read; 2 for a bad command line.

Examples:
  ripple render -f loadbalancer.yaml --resource svc-a.yaml --cluster cluster-a:env=prod
  ripple render -f service-policy.yaml --resource lb-service.yaml --cluster prod:env=production --cluster eng:dep=eng -o table
  ripple render -f seed.yaml --resource svc.yaml --cluster-object clusters.yaml --mgmt-resource upstream-lb.yaml -o json
  ripple render -f gitops-profile.yaml --cluster prod:env=prod --source GitRepository/flux-system/apps=./apps-checkout
`;

const FLAGS = {
  file: { type: 'string', short: 'f', multiple: true },
  resource: { type: 'string', multiple: true },
  cluster: { type: 'string', multiple: true },
  'cluster-object': { type: 'string', multiple: true },
  'mgmt-resource': { type: 'string', multiple: true },
  source: { type: 'string', multiple: true },
  labels: { type: 'string' },
  output: { type: 'string', short: 'o' },
} as const;

const SVELTOS_CLUSTER = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster' } as const;

/** InputError is a file that cannot be read or holds something other than Kubernetes objects. */
class InputError extends Error {
  override readonly name = 'InputError';
}

/** readObjects reads every object of a YAML/JSON file (a `List` contributes its items). */
async function readObjects(path: string, io: CommandIO, stdin: { text?: string }): Promise<KubeObject[]> {
  let text: string;
  if (path === '-') {
    if (stdin.text === undefined) {
      const chunks: Buffer[] = [];
      for await (const c of io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
      stdin.text = Buffer.concat(chunks).toString('utf8');
    }
    text = stdin.text;
  } else {
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      throw new InputError(err.code === 'ENOENT' ? `${path}: no such file` : `${path}: ${err.message}`);
    }
  }
  const out: KubeObject[] = [];
  const name = path === '-' ? 'stdin' : path;
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) {
      const e = doc.errors[0];
      const at = e.linePos?.[0] ? ` at line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '';
      throw new InputError(`${name}: invalid YAML${at}: ${e.message.split('\n')[0]}`);
    }
    const v = doc.toJS() as unknown;
    if (v === null || v === undefined) continue;
    const items = isObject(v) && v.kind === 'List' && Array.isArray(v.items) ? (v.items as unknown[]) : [v];
    for (const item of items) {
      if (!isObject(item) || typeof item.kind !== 'string' || typeof item.apiVersion !== 'string' || !isObject(item.metadata) || typeof item.metadata.name !== 'string') {
        throw new InputError(`${name}: every document must be a Kubernetes object with apiVersion, kind and metadata.name`);
      }
      out.push(item as unknown as KubeObject);
    }
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> & { metadata?: unknown } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** parseLabels reads `K=V,...`. */
function parseLabels(s: string, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of s.split(',').filter((p) => p.trim() !== '')) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new UsageError(`${flag} wants K=V,..., got ${JSON.stringify(part)}`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/** parseCluster reads `NAME[:K=V,...]` (NAME or NAMESPACE/NAME) into a SveltosCluster identity and labels. */
function parseCluster(s: string): { namespace: string; name: string; labels: Record<string, string> } {
  const colon = s.indexOf(':');
  const id = colon < 0 ? s : s.slice(0, colon);
  const labels = colon < 0 ? {} : parseLabels(s.slice(colon + 1), '--cluster NAME:');
  const parts = id.split('/');
  const [namespace, name] = parts.length === 1 ? [parts[0], parts[0]] : parts;
  if (parts.length > 2 || !isDNS1123Label(namespace ?? '') || !name) {
    throw new UsageError(`--cluster wants NAME[:K=V,...] or NAMESPACE/NAME[:K=V,...] with DNS-1123 names, got ${JSON.stringify(s)}`);
  }
  return { namespace, name, labels };
}

const SOURCE_KINDS = ['GitRepository', 'OCIRepository', 'Bucket', 'ConfigMap', 'Secret'];
const MAX_SOURCE_BYTES = 64 << 20;

/** parseSource reads `KIND/NAMESPACE/NAME=DIR` or `NAMESPACE/NAME=DIR` (the directory is read later). */
function parseSource(s: string): { kind?: string; namespace: string; name: string; dir: string } {
  const eq = s.indexOf('=');
  const parts = eq < 0 ? [] : s.slice(0, eq).split('/');
  const dir = eq < 0 ? '' : s.slice(eq + 1);
  const [kind, namespace, name] = parts.length === 3 ? parts : [undefined, ...parts];
  if ((parts.length !== 2 && parts.length !== 3) || !dir || !namespace || !name || (kind !== undefined && !SOURCE_KINDS.includes(kind))) {
    throw new UsageError(`--source wants KIND/NAMESPACE/NAME=DIR or NAMESPACE/NAME=DIR (KIND: ${SOURCE_KINDS.join(', ')}), got ${JSON.stringify(s)}`);
  }
  return { kind, namespace, name, dir };
}

/** readSourceDir reads every regular file below dir (not .git), as relative POSIX paths. */
function readSourceDir(dir: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  let total = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.git') continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const b = readFileSync(p);
        total += b.length;
        if (total > MAX_SOURCE_BYTES) throw new InputError(`--source ${dir}: more than ${MAX_SOURCE_BYTES} bytes of files`);
        out.set(relative(dir, p).split(sep).join('/'), b);
      }
    }
  };
  try {
    if (!statSync(dir).isDirectory()) throw new InputError(`--source ${dir}: not a directory`);
    walk(dir);
  } catch (e) {
    if (e instanceof InputError) throw e;
    const err = e as NodeJS.ErrnoException;
    throw new InputError(err.code === 'ENOENT' ? `--source ${dir}: no such directory` : `--source ${dir}: ${err.message}`);
  }
  return out;
}

/** formatTable prints the preview's rows, or says that nothing would happen. */
function formatTable(r: PreviewResult): string {
  const rows = previewRows(r);
  return rows.length > 0 ? table(PREVIEW_COLUMNS, rows) : 'Nothing would be generated or deployed.\n';
}

export const commands: Command[] = [
  {
    path: ['render'],
    summary: 'Preview offline what triggers match, generate and deploy to each cluster (no server needed)',
    usage: USAGE,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, FLAGS, { allowPositionals: true });
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])} (files go after -f)`);
      if (!values.file?.length) throw new UsageError('missing -f FILE with the EventTriggers, EventSources, ConfigMaps or profiles to preview');
      const output = values.output ?? 'yaml';
      if (output !== 'yaml' && output !== 'json' && output !== 'table') throw new UsageError(`--output must be yaml, json or table (got ${JSON.stringify(output)})`);
      const wanted = (values.cluster ?? []).map(parseCluster);
      const sourceSpecs = (values.source ?? []).map(parseSource);
      if (values.labels !== undefined) {
        if (wanted.length !== 1) throw new UsageError('--labels needs exactly one --cluster (or write --cluster NAME:K=V,...)');
        Object.assign(wanted[0].labels, parseLabels(values.labels, '--labels'));
      }

      let management: KubeObject[];
      let live: KubeObject[];
      let resources: KubeObject[];
      let clusterObjects: KubeObject[];
      let sources: PreviewSource[];
      try {
        const stdin: { text?: string } = {};
        const read = async (files: readonly string[] | undefined) => (await Promise.all((files ?? []).map((f) => readObjects(f, io, stdin)))).flat();
        management = await read(values.file);
        live = await read(values['mgmt-resource']);
        resources = await read(values.resource);
        clusterObjects = await read(values['cluster-object']);
        sources = sourceSpecs.map((s) => ({ kind: s.kind, namespace: s.namespace, name: s.name, files: readSourceDir(s.dir), origin: s.dir }));
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        io.stderr.write(`ripple render: ${e.message}\n`);
        return ExitCode.BadInput;
      }
      const clusters = [...clusterObjects];
      for (const w of wanted) {
        const given = [...clusterObjects, ...management].find((o) => o.kind === SVELTOS_CLUSTER.kind && o.metadata.namespace === w.namespace && o.metadata.name === w.name);
        clusters.push(
          given
            ? { ...given, metadata: { ...given.metadata, labels: { ...given.metadata.labels, ...w.labels } } }
            : { ...SVELTOS_CLUSTER, metadata: { namespace: w.namespace, name: w.name, labels: w.labels }, spec: {}, status: { ready: true, connectionStatus: 'Healthy' } },
        );
      }

      // The wall clock is read here, at the edge: templates and scripts may call now/date/os.time.
      const clock = { now: () => Date.now() };
      const funcOptions: FuncOptions = { clock };
      const runtime = await createLuaRuntime({ clock });
      let result;
      try {
        result = await runPreview({ management, live, clusters, resources, sources }, { runtime, funcOptions });
      } finally {
        runtime.close();
      }
      io.stdout.write(output === 'json' ? formatJson(result) : output === 'table' ? formatTable(result) : formatYaml(result));
      io.stderr.write(formatDiagnostics(result));
      io.stderr.write(`ripple render: ${formatSummary(result)}\n`);
      return result.problems.length > 0 ? ExitCode.BadInput : ExitCode.Ok;
    },
  },
];
