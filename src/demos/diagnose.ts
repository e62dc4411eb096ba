// diagnose.ts: what to show when an expected outcome does not happen — the state of every stage of the event path in
// the management cluster, from clusters to deployed add-ons, and the Warning Events, one line each.
import { errorMessage, type KubeClient, type KubeObject } from '../kube/index.js';

type Obj = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown>; type?: string; reason?: string; message?: string; involvedObject?: { kind?: string; namespace?: string; name?: string }; lastTimestamp?: string; count?: number };

const LIB = 'lib.projectsveltos.io/v1beta1';
const CONFIG = 'config.projectsveltos.io/v1beta1';
const MAX_EVENTS = 12;

async function list(mgmt: KubeClient, apiVersion: string, kind: string): Promise<Obj[]> {
  try {
    return (await mgmt.list<Obj>({ apiVersion, kind })).items;
  } catch (err) {
    return [{ apiVersion, kind, metadata: { name: `(cannot list ${kind}: ${errorMessage(err)})` } }];
  }
}

const name = (o: Obj) => `${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

/** diagnose returns one line per relevant fact about the event path in the management cluster. */
export async function diagnose(mgmt: KubeClient): Promise<string[]> {
  const [clusters, triggers, addons, reports, summaries, events] = await Promise.all([
    list(mgmt, LIB, 'SveltosCluster'),
    list(mgmt, LIB, 'EventTrigger'),
    list(mgmt, 'lib.projectsveltos.io/v1alpha1', 'EventBasedAddOn'),
    list(mgmt, LIB, 'EventReport'),
    list(mgmt, CONFIG, 'ClusterSummary'),
    list(mgmt, 'v1', 'Event'),
  ]);
  const out: string[] = [];
  for (const c of clusters) {
    const s = c.status ?? {};
    const paused = (c.spec as { paused?: boolean } | undefined)?.paused === true ? ' PAUSED (spec.paused: nothing is deployed to it)' : '';
    out.push(`SveltosCluster ${name(c)}: ready=${Boolean(s.ready)}${paused} labels=${JSON.stringify(c.metadata.labels ?? {})}${s.failureMessage ? ` failure: ${String(s.failureMessage)}` : ''}`);
  }
  for (const t of [...triggers, ...addons]) {
    const infos = (t.status?.clusterInfo ?? []) as { cluster?: { namespace?: string; name?: string }; status?: string; failureMessage?: string }[];
    const per = infos.map((i) => `${i.cluster?.namespace}/${i.cluster?.name}=${i.status}${i.failureMessage ? ` (${i.failureMessage})` : ''}`);
    const matching = ((t.status?.matchingClusterRefs ?? t.status?.matchingClusters ?? []) as unknown[]).length;
    out.push(`${t.kind} ${name(t)}: ${matching} matching cluster(s)${per.length > 0 ? `; ${per.join('; ')}` : ''}`);
  }
  for (const r of reports) {
    const m = ((r.spec?.matchingResources ?? []) as { namespace?: string; name?: string }[]).map((x) => `${x.namespace ? `${x.namespace}/` : ''}${x.name}`);
    const failure = r.metadata.annotations?.['agent.ripple.dev/evaluation-failure'] ?? (r.status?.failureMessage as string | undefined);
    out.push(`EventReport ${name(r)}: matches [${m.join(', ')}] phase=${String(r.status?.phase ?? '')}${failure ? ` failure: ${failure}` : ''}`);
  }
  for (const cs of summaries) {
    const fs = (cs.status?.featureSummaries ?? []) as { featureID?: string; status?: string; failureMessage?: string }[];
    out.push(`ClusterSummary ${name(cs)}: ${fs.map((f) => `${f.featureID}=${f.status}${f.failureMessage ? ` (${f.failureMessage})` : ''}`).join('; ') || 'no status yet'}`);
  }
  const warnings = events
    .filter((e) => e.type === 'Warning')
    .sort((a, b) => String(b.lastTimestamp ?? '').localeCompare(String(a.lastTimestamp ?? '')))
    .slice(0, MAX_EVENTS);
  for (const e of warnings) {
    const io = e.involvedObject ?? {};
    out.push(`Warning Event on ${io.kind} ${io.namespace ? `${io.namespace}/` : ''}${io.name}: ${e.reason}: ${e.message}${(e.count ?? 1) > 1 ? ` (×${e.count})` : ''}`);
  }
  return out;
}
