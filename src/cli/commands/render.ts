// render: offline preview of what an EventTrigger generates — the ClusterProfiles and instantiated ConfigMaps/Secrets
// the event manager would write for given matching resources in a given cluster — through the event manager's own
// pure core (src/events renderEvents), without any cluster.
import { readFileSync } from 'node:fs';
import { parseAllDocuments, stringify } from 'yaml';
import { eventReportName, matchesLabelSelector, normalizeAs, type EventReport, type EventTrigger, type KubeObject } from '../../api/index.js';
import { encodeEventReportResources, objectReferenceOf } from '../../agent/index.js';
import { eventFuncMap, renderClusterTemplate, type FuncOptions } from '../../funcs/index.js';
import { decodeJSON, TemplateError, type GoValue } from '../../gotemplate/index.js';
import { EventError, renderEvents, reportEvents, type SourceObject } from '../../events/index.js';
import { ExitCode, UsageError, parseFlags, type Command } from '../command.js';

const USAGE = `Usage:
  ripple render -f FILE [-f FILE…] --resource FILE [--resource FILE…] [--cluster NAMESPACE/NAME] [--labels K=V,…]

Shows, offline, exactly what the event manager generates for EventTriggers (and EventBasedAddOns) when the given
resources match their EventSource in a cluster: the ClusterProfiles and the instantiated ConfigMaps/Secrets, as the
YAML it would apply. Nothing is contacted; templates are rendered with Sveltos' event-stage functions and data
(.Resource, .Resources, .MatchingResource(s), .Cluster), numbers in resources decoded as Kubernetes does (int64).

Flags:
  -f, --file FILE       YAML with EventTriggers/EventBasedAddOns, the ConfigMaps/Secrets they reference and,
                        optionally, SveltosClusters to render for (repeatable; "-" is not supported)
  --resource FILE       YAML with the objects matching the EventSource, as the agent collects them (repeatable)
  --cluster NS/NAME     render for this SveltosCluster (default: every SveltosCluster in the files, else default/cluster)
  --labels K=V,…        labels of the --cluster cluster (selectors are matched against them)
  --all                 also render for clusters the trigger's sourceClusterSelector does not select
  -o, --output FORMAT   yaml (default) or json

Exit status: 0 when everything renders, 1 when an event fails to render (the cause — template name, line and
column, missing ConfigMap, invalid YAML… — goes to stderr; the other events are still printed), 3 when a file
cannot be read or holds no trigger, 2 for a bad command line.

Examples:
  ripple render -f eventtrigger.yaml --resource service.yaml --cluster cluster-a/a --labels env=prod
  ripple render -f seed.yaml --resource svc.yaml --all -o json
`;

const FLAGS = {
  file: { type: 'string', short: 'f', multiple: true },
  resource: { type: 'string', multiple: true },
  cluster: { type: 'string' },
  labels: { type: 'string' },
  all: { type: 'boolean' },
  output: { type: 'string', short: 'o' },
} as const;

type Obj = KubeObject & Record<string, unknown>;

class InputError extends Error {}

function readObjects(path: string): Obj[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new InputError(err.code === 'ENOENT' ? `${path}: no such file` : `${path}: ${err.message}`);
  }
  const out: Obj[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new InputError(`${path}: invalid YAML: ${doc.errors[0].message.split('\n')[0]}`);
    const v = doc.toJS() as unknown;
    if (v === null || v === undefined) continue;
    if (typeof v !== 'object' || Array.isArray(v) || typeof (v as Obj).kind !== 'string') throw new InputError(`${path}: every document must be a Kubernetes object with a kind`);
    out.push(v as Obj);
  }
  return out;
}

function parseLabels(s: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (s ?? '').split(',').filter((p) => p.trim() !== '')) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new UsageError(`--labels wants K=V,…, got ${JSON.stringify(part)}`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

export const commands: Command[] = [
  {
    path: ['render'],
    summary: 'Preview offline what an EventTrigger generates (ClusterProfiles, instantiated ConfigMaps) for given resources',
    usage: USAGE,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, FLAGS, { allowPositionals: false });
      void positionals;
      if (!values.file?.length) throw new UsageError('missing -f FILE with at least one EventTrigger');
      const output = values.output ?? 'yaml';
      if (output !== 'yaml' && output !== 'json') throw new UsageError(`--output must be yaml or json (got ${JSON.stringify(output)})`);
      if (values.labels !== undefined && values.cluster === undefined) throw new UsageError('--labels needs --cluster');
      let config: Obj[];
      let resources: Obj[];
      try {
        config = values.file.flatMap(readObjects);
        resources = (values.resource ?? []).flatMap(readObjects);
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        io.stderr.write(`ripple render: ${e.message}\n`);
        return ExitCode.BadInput;
      }

      const triggers: { t: EventTrigger; kind: string }[] = [];
      for (const o of config.filter((x) => x.kind === 'EventTrigger' || x.kind === 'EventBasedAddOn')) {
        const n = normalizeAs('EventTrigger', o);
        if (!n.ok) {
          io.stderr.write(`ripple render: ${o.kind} ${o.metadata?.name}: ${n.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}\n`);
          return ExitCode.BadInput;
        }
        triggers.push({ t: n.object as EventTrigger, kind: n.from.kind });
      }
      if (triggers.length === 0) {
        io.stderr.write('ripple render: the -f files hold no EventTrigger or EventBasedAddOn\n');
        return ExitCode.BadInput;
      }

      let clusters = config.filter((x) => x.kind === 'SveltosCluster');
      if (values.cluster !== undefined) {
        const [namespace, name, extra] = values.cluster.split('/');
        if (!namespace || !name || extra !== undefined) throw new UsageError(`--cluster wants NAMESPACE/NAME, got ${JSON.stringify(values.cluster)}`);
        const found = clusters.find((c) => c.metadata.namespace === namespace && c.metadata.name === name);
        const labels = { ...(found?.metadata.labels ?? {}), ...parseLabels(values.labels) };
        clusters = [found ? { ...found, metadata: { ...found.metadata, labels } } : sveltosCluster(namespace, name, labels)];
      } else if (clusters.length === 0) {
        clusters = [sveltosCluster('default', 'cluster', {})];
      }

      const opts: FuncOptions = { clock: { now: () => Date.now() } };
      const funcs = eventFuncMap(opts);
      const lookup = (kind: string, namespace: string, name: string) =>
        config.find((o) => o.kind === kind && (o.metadata.namespace ?? 'default') === namespace && o.metadata.name === name) as SourceObject | undefined;
      const documents: unknown[] = [];
      let failed = false;
      for (const { t, kind } of triggers) {
        for (const c of clusters) {
          const ns = c.metadata.namespace ?? 'default';
          const where = `${kind} ${t.metadata.name}, cluster ${ns}/${c.metadata.name}`;
          // normalize turned v1alpha1 string selectors ("env=fv") into LabelSelectors.
          if (!values.all && !matchesLabelSelector(t.spec.sourceClusterSelector, c.metadata.labels ?? {}, { empty: 'nothing' })) {
            io.stderr.write(`${where}: skipped, sourceClusterSelector does not select the cluster (labels ${JSON.stringify(c.metadata.labels ?? {})}; --all renders anyway)\n`);
            continue;
          }
          const clusterJSON = JSON.stringify(c);
          let es: string;
          try {
            es = renderClusterTemplate(t.metadata.name, t.spec.eventSourceName, { Cluster: decodeJSON(clusterJSON, { numbers: 'int64' }) as GoValue, ClusterNamespace: ns, ClusterName: c.metadata.name }, opts);
          } catch (e) {
            if (!(e instanceof TemplateError)) throw e;
            io.stderr.write(`${where}: eventSourceName: ${e.message}\n`);
            failed = true;
            continue;
          }
          const report = {
            apiVersion: 'lib.projectsveltos.io/v1beta1',
            kind: 'EventReport',
            metadata: { namespace: ns, name: eventReportName('Sveltos', es, c.metadata.name) },
            spec: {
              clusterNamespace: ns,
              clusterName: c.metadata.name,
              clusterType: 'Sveltos',
              eventSourceName: es,
              matchingResources: resources.map((r) => objectReferenceOf(r)),
              resources: encodeEventReportResources(resources),
            },
          } as EventReport;
          let rendered;
          try {
            const view = { name: t.metadata.name, kind: 'EventTrigger' as const, spec: t.spec, labels: t.metadata.labels ?? {}, annotations: t.metadata.annotations ?? {} };
            rendered = renderEvents(
              {
                trigger: view,
                cluster: { type: 'Sveltos', namespace: ns, name: c.metadata.name, apiVersion: c.apiVersion, kind: c.kind },
                clusterJSON,
                eventSourceName: es,
                funcs,
                lookup,
                namespace: 'projectsveltos',
              },
              reportEvents(report, t.spec.oneForEvent === true).events,
            );
          } catch (e) {
            if (!(e instanceof EventError)) throw e;
            io.stderr.write(`${where}: ${e.message}\n`);
            failed = true;
            continue;
          }
          for (const l of rendered.legacy) {
            io.stderr.write(`${where}: warning: ${l.kind} ${l.namespace}/${l.name} reads ${l.fields.join(', ')} without projectsveltos.io/instantiate; instantiated as older Sveltos releases did (add the annotation)\n`);
          }
          if (rendered.events.length === 0) io.stderr.write(`${where}: no event (no matching resource): nothing generated\n`);
          for (const e of rendered.events) {
            if (e.issues.length > 0) {
              failed = true;
              for (const i of e.issues) io.stderr.write(`${where}, event ${e.id}: ${i.message}\n`);
              continue;
            }
            if (e.action === 'delete') {
              io.stderr.write(`${where}, event ${e.id}: cloudEventAction Delete: its outputs would be removed\n`);
              continue;
            }
            documents.push(...e.objects, ...(e.profile ? [e.profile] : []));
          }
        }
      }
      if (output === 'json') io.stdout.write(JSON.stringify(documents, null, 2) + '\n');
      else io.stdout.write(documents.map((d) => stringify(d, { lineWidth: 0 })).join('---\n'));
      return failed ? ExitCode.Failed : ExitCode.Ok;
    },
  },
];

function sveltosCluster(namespace: string, name: string, labels: Record<string, string>): Obj {
  return {
    apiVersion: 'lib.projectsveltos.io/v1beta1',
    kind: 'SveltosCluster',
    metadata: { namespace, name, labels },
    spec: {},
    status: { ready: true },
  };
}
