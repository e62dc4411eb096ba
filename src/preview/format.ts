// format.ts: a preview as text — YAML documents with a comment saying where each goes and why, table rows, JSON,
// and the problems and notes as one line each.
import { stringify } from 'yaml';
import type { DeployAction, DeploymentView, GeneratedView, PreviewResult } from './types.js';

/** eventLabel turns an event identity into words: `resource:apps/Deployment/ns/x` → `Deployment.apps ns/x`. */
export function eventLabel(id: string): string {
  if (id === 'all') return 'all matching resources';
  if (id.startsWith('resource:')) {
    const [group, kind, namespace, ...name] = id.slice('resource:'.length).split('/');
    return `${kind}${group ? `.${group}` : ''} ${namespace ? `${namespace}/` : ''}${name.join('/')}`;
  }
  return id;
}

function objectName(o: { namespace?: string; name: string }): string {
  return o.namespace ? `${o.namespace}/${o.name}` : o.name;
}

function profileLabel(d: DeploymentView): string {
  return `${d.profile.kind}/${d.profile.namespace ? `${d.profile.namespace}/` : ''}${d.profile.name}`;
}

function actionWords(a: DeployAction): string {
  const sub = a.subresources.length > 0 ? ` (+ subresource ${a.subresources.join(', ')})` : '';
  switch (a.type) {
    case 'createNamespace':
      return 'create namespace';
    case 'adopt':
      return `update an existing object, adopting it${sub}`;
    default:
      return `${a.type}${sub}`;
  }
}

function generatedComment(g: GeneratedView): string {
  return `# generated in the management cluster by ${g.triggerKind} ${g.trigger} for cluster ${g.cluster} (${eventLabel(g.event)})`;
}

function deployedComment(d: DeploymentView, a: DeployAction): string {
  const where = a.target === 'Local' ? `the management cluster (${a.targetCluster}, Local)` : `cluster ${a.targetCluster} (Remote)`;
  const from = a.source ? ` from ${a.source}` : '';
  return `# deployed to ${where} by ${profileLabel(d)} for cluster ${d.cluster}${from}: ${actionWords(a)}`;
}

/** formatYaml prints every generated and deployed object as a YAML document preceded by a comment. */
export function formatYaml(r: PreviewResult): string {
  const docs: string[] = [];
  for (const g of r.generated) docs.push(`${generatedComment(g)}\n${stringify(g.object, { lineWidth: 0 })}`);
  for (const d of r.deployments) {
    for (const a of d.actions) {
      if (!a.object) continue;
      docs.push(`${deployedComment(d, a)}\n${stringify(a.object, { lineWidth: 0 })}`);
    }
  }
  return docs.join('---\n');
}

/** formatJson prints the whole preview result. */
export function formatJson(r: PreviewResult): string {
  return JSON.stringify(r, null, 2) + '\n';
}

/** PREVIEW_COLUMNS are the columns of previewRows. */
export const PREVIEW_COLUMNS = ['STAGE', 'CLUSTER', 'WHERE', 'ACTION', 'KIND', 'NAME', 'BY'] as const;

/** previewRows is one row per generated object, deployed object and failed deployment (columns: PREVIEW_COLUMNS). */
export function previewRows(r: PreviewResult): string[][] {
  const rows: string[][] = [];
  for (const g of r.generated) {
    const md = g.object.metadata;
    rows.push(['generate', g.cluster, 'mgmt', 'create', g.object.kind, objectName({ namespace: md.namespace, name: md.name }), `${g.triggerKind}/${g.trigger} (${eventLabel(g.event)})`]);
  }
  for (const d of r.deployments) {
    for (const a of d.actions) {
      const where = `${a.targetCluster} (${a.target})`;
      const what = a.subresources.length > 0 ? `${objectName(a)} +${a.subresources.join(',')}` : objectName(a);
      rows.push(['deploy', d.cluster, where, a.type === 'createNamespace' ? 'create' : a.type, a.kind, what, `${profileLabel(d)}${a.source ? ` <- ${a.source}` : ''}`]);
    }
    if (d.failure) rows.push(['deploy', d.cluster, '-', 'FAILED', '-', d.failure.reason, profileLabel(d)]);
  }
  return rows;
}

/** formatDiagnostics prints the problems (`error:`) and notes (`note:`), one per line, for stderr. */
export function formatDiagnostics(r: PreviewResult): string {
  const lines = [...r.notes.map((n) => `note: ${n.where}: ${n.message}`), ...r.problems.map((p) => `error: ${p.where}: ${p.message}`)];
  return lines.length > 0 ? lines.join('\n') + '\n' : '';
}

/** formatSummary is one line: how much was generated and deployed, and how many problems there are. */
export function formatSummary(r: PreviewResult): string {
  const objects = r.deployments.reduce((n, d) => n + d.actions.filter((a) => a.type !== 'conflict').length, 0);
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  return `${plural(r.generated.length, 'generated object')}; ${plural(r.deployments.length, 'deployment')} (${plural(objects, 'object')}) to ${plural(new Set(r.deployments.map((d) => d.cluster)).size, 'cluster')}; ${plural(r.problems.length, 'problem')}`;
}
