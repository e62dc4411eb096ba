// needs: which EventSources each cluster must evaluate — for every EventTrigger (EventBasedAddOns normalised into
// EventTriggers) whose sourceClusterSelector / clusterSetRefs select the cluster, its eventSourceName rendered with
// the cluster's data (html/template with .Cluster, .ClusterNamespace, .ClusterName, as libsveltos does). Pure.
// Go: event-manager controllers/eventtrigger_deployer.go (deployEventSource per matching cluster),
// libsveltos lib/template renderClusterTemplate.
import type { ClusterEntry } from '../clusters/index.js';
import { renderClusterTemplate, type FuncOptions } from '../funcs/index.js';
import { decodeJSON, type GoValue } from '../gotemplate/index.js';

/** TriggerView is the part of a (normalised) EventTrigger the agent needs. */
export interface TriggerView {
  /** `EventTrigger` or `EventBasedAddOn` (where Events about it go). */
  kind: string;
  apiVersion: string;
  name: string;
  uid?: string;
  eventSourceName: string;
  sourceClusterSelector?: unknown;
  clusterSetRefs?: string[];
}

/** ClusterNeeds is what one cluster must evaluate: EventSource name → the triggers that need it (sorted). */
export interface ClusterNeeds {
  entry: ClusterEntry;
  sources: Map<string, string[]>;
}

/** NeedsProblem is a trigger whose eventSourceName cannot be rendered for a cluster. */
export interface NeedsProblem {
  trigger: TriggerView;
  cluster: string;
  message: string;
}

/** NeedsResult is the outcome of computeNeeds. */
export interface NeedsResult {
  /** By cluster key; clusters that need nothing are absent. */
  byCluster: Map<string, ClusterNeeds>;
  problems: NeedsProblem[];
}

/**
 * computeNeeds maps every selected (trigger, cluster) pair to the rendered EventSource name. `select` returns the
 * clusters a trigger selects; `render` renders a templated name (see EventSourceNameRenderer).
 */
export function computeNeeds(
  triggers: readonly TriggerView[],
  select: (t: TriggerView) => readonly ClusterEntry[],
  render: (t: TriggerView, cluster: ClusterEntry) => string,
): NeedsResult {
  const byCluster = new Map<string, ClusterNeeds>();
  const problems: NeedsProblem[] = [];
  for (const t of triggers) {
    for (const entry of select(t)) {
      let name: string;
      try {
        name = render(t, entry);
      } catch (err) {
        problems.push({ trigger: t, cluster: entry.key, message: `eventSourceName ${JSON.stringify(t.eventSourceName)}: ${(err as Error).message}` });
        continue;
      }
      if (name === '') {
        problems.push({ trigger: t, cluster: entry.key, message: `eventSourceName ${JSON.stringify(t.eventSourceName)} renders to an empty name for cluster ${entry.key}` });
        continue;
      }
      let n = byCluster.get(entry.key);
      if (!n) byCluster.set(entry.key, (n = { entry, sources: new Map() }));
      const users = n.sources.get(name) ?? [];
      if (!users.includes(t.name)) users.push(t.name);
      n.sources.set(name, users);
    }
  }
  for (const n of byCluster.values()) for (const users of n.sources.values()) users.sort();
  return { byCluster, problems };
}

/**
 * EventSourceNameRenderer renders eventSourceName for a cluster, with a fast path for plain names and a cache keyed
 * by (template text, trigger, cluster resourceVersion), so recomputing every trigger × cluster pair stays cheap.
 */
export class EventSourceNameRenderer {
  private readonly cache = new Map<string, string>();
  private readonly clusterData = new Map<string, { rv: string; value: GoValue }>();

  constructor(private readonly funcOptions: FuncOptions) {}

  /** render returns the EventSource name trigger t uses in cluster entry (throws the template error). */
  render(t: TriggerView, entry: ClusterEntry): string {
    const text = t.eventSourceName;
    if (!text.includes('{{')) return text === '' ? entry.ref.namespace : text;
    const rv = String(entry.object.metadata?.resourceVersion ?? '');
    const key = `${entry.key}\0${rv}\0${t.name}\0${text}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const out = renderClusterTemplate(`${entry.ref.namespace}-${entry.ref.name}-${t.name}`, text, {
      Cluster: this.clusterValue(entry, rv),
      ClusterNamespace: entry.ref.namespace,
      ClusterName: entry.ref.name,
    }, this.funcOptions);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, out);
    return out;
  }

  // .Cluster is the cluster object with Go's int64/float64 number typing, as the dynamic client yields it.
  private clusterValue(entry: ClusterEntry, rv: string): GoValue {
    const cur = this.clusterData.get(entry.key);
    if (cur && cur.rv === rv) return cur.value;
    const value = decodeJSON(JSON.stringify(entry.object), { numbers: 'int64' });
    this.clusterData.set(entry.key, { rv, value });
    return value;
  }
}
