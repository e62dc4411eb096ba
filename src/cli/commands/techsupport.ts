// techsupport: one tarball with what a support request needs — `sveltosctl techsupport` without its in-cluster
// controller: versions, every Ripple/Sveltos object of the management cluster with its status, Events, and the
// Secrets of the Sveltos namespaces with their values redacted; from each selected managed cluster its version and
// Events; and Ripple's log files. Secret values never leave the machine: only their keys and sizes.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { clusterTypeOf, toEntry } from '../../clusters/index.js';
import { errorMessage, isKindNotInstalled, type KubeClient, type KubeObject } from '../../kube/index.js';
import { ExitCode, UsageError, parseFlags, type Command, type CommandIO } from '../command.js';
import { VERSION } from '../main.js';
import { tarGz, type TarEntry } from '../tar.js';
import { clusterClient, connect, listKind, parseClusterRef, runGuarded } from './get.js';

const LIB = 'lib.projectsveltos.io/v1beta1';
const CONFIG = 'config.projectsveltos.io/v1beta1';

/** STATUS_KINDS are the management-cluster kinds a support bundle holds, status included. */
const STATUS_KINDS = [
  { apiVersion: LIB, kind: 'SveltosCluster' },
  { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', optional: true },
  { apiVersion: LIB, kind: 'EventSource' },
  { apiVersion: LIB, kind: 'EventTrigger' },
  { apiVersion: LIB, kind: 'EventReport' },
  { apiVersion: CONFIG, kind: 'ClusterProfile' },
  { apiVersion: CONFIG, kind: 'Profile', optional: true },
  { apiVersion: CONFIG, kind: 'ClusterSummary' },
  { apiVersion: CONFIG, kind: 'ClusterReport', optional: true },
] as const;

/** redactSecret keeps a Secret's keys and their sizes, never the values (nor a last-applied copy of them). */
export function redactSecret(o: KubeObject): KubeObject {
  const s = o as KubeObject & { data?: Record<string, string>; stringData?: Record<string, string> };
  const redact = (m: Record<string, string> | undefined, encoded: boolean) =>
    m && Object.fromEntries(Object.entries(m).map(([k, v]) => [k, `REDACTED (${encoded ? Buffer.from(v, 'base64').length : Buffer.byteLength(v)} bytes)`]));
  const annotations = { ...(o.metadata.annotations ?? {}) };
  delete annotations['kubectl.kubernetes.io/last-applied-configuration'];
  return {
    ...s,
    metadata: { ...o.metadata, annotations, managedFields: undefined } as KubeObject['metadata'],
    ...(s.data ? { data: redact(s.data, true) } : {}),
    ...(s.stringData ? { stringData: redact(s.stringData, false) } : {}),
  } as KubeObject;
}

/** redactText hides credentials that a log line may carry: bearer tokens, tokens and passwords in key=value or
 * key: value form, and client keys. */
export function redactText(text: string): string {
  return text
    .replace(/(bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1REDACTED')
    .replace(/("?(?:token|password|client-key-data|client-certificate-data)"?\s*[:=]\s*"?)[^\s",}]+/gi, '$1REDACTED');
}

const yamlDocs = (objects: readonly unknown[]) => objects.map((o) => `---\n${stringify(o, { lineWidth: 0 })}`).join('');
const withoutManagedFields = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, managedFields: undefined } });

async function events(client: KubeClient): Promise<KubeObject[]> {
  const items = (await client.list<KubeObject & { lastTimestamp?: string; eventTime?: string }>({ apiVersion: 'v1', kind: 'Event' })).items;
  const t = (e: { lastTimestamp?: string; eventTime?: string; metadata: KubeObject['metadata'] }) => e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp ?? '';
  return items.sort((a, b) => t(a).localeCompare(t(b))).map(withoutManagedFields);
}

const USAGE = `Usage: ripple techsupport [--output FILE] [--cluster NS/NAME]... [--data-dir DIR] [--log-file FILE]...
                         [--kubeconfig FILE] [--context CTX]

Writes one .tar.gz for a support request, like \`sveltosctl techsupport\`:
  versions.json                       ripple, Node.js, and the Kubernetes version of every cluster read
  management/<Kind>.yaml              every SveltosCluster, EventSource, EventTrigger, EventReport, ClusterProfile,
                                      Profile, ClusterSummary and ClusterReport, with status
  management/events.yaml              the management cluster's Events, oldest first
  management/secrets.yaml             the Secrets of the Sveltos namespaces (projectsveltos and each cluster's):
                                      keys and sizes only — every value is REDACTED
  clusters/<ns>_<name>/version.json   each managed cluster's version (or why it could not be read)
  clusters/<ns>_<name>/events.yaml    and its Events
  logs/<file>                         ripple.log of --data-dir (default .ripple when present) and each --log-file,
                                      with bearer tokens, tokens and passwords redacted
  errors.txt                          whatever could not be collected, and why
Pod logs of a manager running in a cluster are not collected: add them with \`kubectl logs\` if asked.

Flags:
  --output FILE         the archive (default ripple-techsupport-<UTC time>.tar.gz in the current directory)
  --cluster NS/NAME     collect from this managed cluster only (repeatable; default every registered cluster)
  --data-dir DIR        the \`ripple up\` data directory whose ripple.log to include (default .ripple if present)
  --log-file FILE       another log file to include (repeatable)
  --kubeconfig FILE     kubeconfig of the management cluster (default: $KUBECONFIG, else ~/.kube/config)
  --context CTX         context to use from the kubeconfig

Exit codes: 0 written (errors.txt in the archive lists what could not be collected); 2 bad command line;
            3 unusable kubeconfig or unreadable log file; 4 management cluster unreachable.

Example:
  ripple techsupport --cluster edge/edge --data-dir .ripple
`;

export const commands: Command[] = [
  {
    path: ['techsupport'],
    summary: 'Write a support tarball: versions, objects with status, Events, logs — secrets redacted',
    usage: USAGE,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        output: { type: 'string' },
        cluster: { type: 'string', multiple: true },
        'data-dir': { type: 'string' },
        'log-file': { type: 'string', multiple: true },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
      const wanted = (values.cluster ?? []).map((c) => parseClusterRef(c)!);
      const now = new Date();
      const output = resolve(values.output ?? `ripple-techsupport-${now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-')}.tar.gz`);
      const logs: string[] = [...(values['log-file'] ?? [])];
      const dataDir = values['data-dir'] ?? (existsSync('.ripple') ? '.ripple' : undefined);
      if (dataDir !== undefined && existsSync(join(dataDir, 'ripple.log'))) logs.unshift(join(dataDir, 'ripple.log'));
      else if (values['data-dir'] !== undefined) {
        io.stderr.write(`ripple techsupport: ${join(values['data-dir'], 'ripple.log')} does not exist\n`);
        return ExitCode.BadInput;
      }
      const logTexts: { name: string; text: string }[] = [];
      for (const f of logs) {
        try {
          logTexts.push({ name: f, text: readFileSync(f, 'utf8') });
        } catch (err) {
          io.stderr.write(`ripple techsupport: cannot read log file ${f}: ${errorMessage(err)}\n`);
          return ExitCode.BadInput;
        }
      }
      const client = connect(values, io);
      if (typeof client === 'number') return client;
      return runGuarded(client, async () => {
        const mtime = Math.floor(now.getTime() / 1000);
        const files: TarEntry[] = [];
        const add = (name: string, data: string) => files.push({ name: `ripple-techsupport/${name}`, data, mtime });
        const errors: string[] = [];
        const versions: Record<string, unknown> = { ripple: VERSION, node: process.version, platform: `${process.platform}/${process.arch}`, collected: now.toISOString() };
        try {
          versions.management = await client.version();
        } catch (err) {
          // The first request: an unreachable management cluster ends the collection (exit 4), like every command.
          io.stderr.write(`ripple techsupport: cannot reach the management cluster (${client.server}): ${errorMessage(err)}\n`);
          return ExitCode.Unavailable;
        }
        const clusterObjects: KubeObject[] = [];
        for (const k of STATUS_KINDS) {
          const items = await listKind(client, io, k, { optional: 'optional' in k });
          if (k.kind === 'SveltosCluster' || k.kind === 'Cluster') clusterObjects.push(...items);
          if (items.length > 0 || !('optional' in k)) add(`management/${k.kind}.yaml`, yamlDocs(items.map(withoutManagedFields)));
        }
        add('management/events.yaml', yamlDocs(await events(client)));
        const entries = clusterObjects
          .map((c) => toEntry(c, clusterTypeOf(c.apiVersion) ?? 'Sveltos'))
          .filter((e) => wanted.length === 0 || wanted.some((w) => w.namespace === e.ref.namespace && w.name === e.ref.name));
        for (const w of wanted) {
          if (!entries.some((e) => e.ref.namespace === w.namespace && e.ref.name === w.name)) errors.push(`--cluster ${w.namespace}/${w.name}: no such SveltosCluster or Cluster`);
        }
        const secretNamespaces = [...new Set(['projectsveltos', ...clusterObjects.map((c) => c.metadata.namespace ?? '')])].filter(Boolean).sort();
        const secrets: KubeObject[] = [];
        for (const ns of secretNamespaces) {
          try {
            secrets.push(...(await client.list<KubeObject>({ apiVersion: 'v1', kind: 'Secret' }, { namespace: ns })).items.map((s) => redactSecret({ ...s, apiVersion: 'v1', kind: 'Secret' })));
          } catch (err) {
            errors.push(`Secrets in namespace ${ns}: ${errorMessage(err)}`);
          }
        }
        add('management/secrets.yaml', yamlDocs(secrets));
        const clusterVersions: Record<string, unknown> = {};
        for (const e of entries) {
          const id = `${e.ref.namespace}/${e.ref.name}`;
          const dir = `clusters/${e.ref.namespace}_${e.ref.name}`;
          let c: KubeClient | undefined;
          try {
            c = await clusterClient(client, e.type, e.ref.namespace, e.ref.name);
            clusterVersions[id] = await c.version({ timeoutMs: 10_000 });
            add(`${dir}/version.json`, JSON.stringify(clusterVersions[id], null, 2) + '\n');
            add(`${dir}/events.yaml`, yamlDocs(await events(c)));
          } catch (err) {
            if (isKindNotInstalled(err)) continue;
            clusterVersions[id] = { error: errorMessage(err) };
            errors.push(`cluster ${id}: ${errorMessage(err)}`);
          } finally {
            c?.close();
          }
        }
        versions.clusters = clusterVersions;
        add('versions.json', JSON.stringify(versions, null, 2) + '\n');
        const used = new Set<string>();
        for (const l of logTexts) {
          let base = l.name.split('/').pop() || 'log';
          for (let i = 2; used.has(base); i++) base = `${l.name.split('/').pop()}.${i}`;
          used.add(base);
          add(`logs/${base}`, redactText(l.text));
        }
        add('errors.txt', errors.length > 0 ? errors.join('\n') + '\n' : 'none\n');
        writeFileSync(output, tarGz(files), { mode: 0o600 });
        io.stdout.write(`ripple techsupport: wrote ${output} (${files.length} files from the management cluster and ${entries.length} managed cluster(s)${errors.length > 0 ? `; ${errors.length} item(s) could not be collected, see errors.txt` : ''})\n`);
        return ExitCode.Ok;
      });
    },
  },
];
