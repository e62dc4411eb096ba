// cluster-template.ts: libsveltos' renderClusterTemplate — the html/template rendering of names and namespaces
// (EventTrigger.eventSourceName, templateResourceRefs name/namespace, policyRef/valuesFrom name/namespace at deploy
// time) with cluster data only. Go: libsveltos lib/template GetReferenceResourceName / renderClusterTemplate.
import { parseCached, type GoValue } from '../gotemplate/index.js';
import { sveltosFuncMap } from './funcmap.js';
import type { FuncOptions } from './options.js';

/** ClusterTemplateData is the dot of a cluster template: `.Cluster` (the cluster object), `.ClusterNamespace`, `.ClusterName`. */
export interface ClusterTemplateData {
  /** The SveltosCluster / CAPI Cluster object, decoded with int64 numbers (decodeJSON(…, {numbers: 'int64'})). */
  Cluster: GoValue;
  ClusterNamespace: string;
  ClusterName: string;
}

/**
 * renderClusterTemplate renders `text` with html/template escaping, missingkey=error and the Sveltos function map.
 * As in libsveltos, an empty text renders to the cluster namespace. Errors are thrown as gotemplate's TemplateError
 * (Go-formatted message, template name `name`).
 */
export function renderClusterTemplate(name: string, text: string, data: ClusterTemplateData, opts: FuncOptions): string {
  if (text === '') return data.ClusterNamespace;
  const t = parseCached(name, text, { funcs: sveltosFuncMap(opts), missingKey: 'error', escape: 'html' });
  return t.execute(data as unknown as GoValue);
}
