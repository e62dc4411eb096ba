// lineage.ts: an event's lineage, from the stamps Ripple already writes — upstream from a deployed object
// (projectsveltos.io/owner-name, clustersummary, reference-* annotations → ClusterSummary → ClusterProfile; a
// generated profile's eventtrigger.lib.projectsveltos.io/* labels and eventtrigger.ripple.dev/event annotation →
// EventTrigger, instantiated ConfigMaps/Secrets, EventReport → the event) and downstream from an event (everything
// generated for it, what that deployed, recursively through profiles deployed by profiles, plus what was withdrawn).
// Times per hop: when the dashboard's watches saw the change (ms), else the objects' own timestamps (seconds).
import { Annotations, EventTriggerLabels, Labels } from '../api/index.js';
import { clusterLabel, detailOf } from '../manager/index.js';
import { resourceEventId, RippleAnnotations } from '../events/index.js';
import { MGMT_ID, type LineageEdge, type LineageGraph, type LineageNode, type LineageRole, type ObjRef } from './api-types.js';
import { apiTime, DEPLOYER_MANAGER, objKey, pickVersion, reportNameFor, summaryProfile, type FleetModel, type Obj } from './model.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const arr = <T = Record<string, unknown>>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

/** LineageBuilder accumulates nodes and edges without duplicates. */
class LineageBuilder {
  readonly nodes = new Map<string, LineageNode>();
  readonly edges = new Map<string, LineageEdge>();
  readonly missing: string[] = [];
  /** Per node: the versions the dashboard saw (ms) and the object's own timestamp, resolved into a time by graph(). */
  private readonly clocks = new Map<string, { versions: readonly number[]; api?: number }>();

  constructor(private readonly m: FleetModel) {}

  /** clock records a node's candidate times (the event node's come from the reports). */
  clock(id: string, versions: readonly number[], api: number | undefined): void {
    this.clocks.set(id, { versions, api });
  }

  node(role: LineageRole, ref: ObjRef, obj: Obj | undefined, extra: Partial<LineageNode> = {}): string {
    const id = extra.id ?? objKey(ref);
    const cur = this.nodes.get(id);
    if (cur) {
      if (role === 'object' && cur.role === 'profile') cur.deployed = true;
      return id;
    }
    // Definitions (EventSource, EventTrigger, a referenced ConfigMap) are not hops in time: their latency is measured
    // from the hop before them.
    const untimed = role === 'trigger' || role === 'source' || role === 'config';
    if (!untimed && extra.time === undefined) this.clock(id, this.m.seenTimes(ref), apiTime(obj, extra.deployed && obj?.kind !== 'ClusterProfile' ? DEPLOYER_MANAGER : undefined));
    this.nodes.set(id, {
      id,
      role,
      ref,
      detail: obj ? detailOf(obj) || undefined : undefined,
      ...(obj?.metadata.deletionTimestamp ? { status: 'Deleting' } : {}),
      ...extra,
    });
    return id;
  }

  edge(from: string, to: string): void {
    if (from === to) return;
    this.edges.set(`${from}→${to}`, { from, to });
  }

  /**
   * graph finishes. Times: objects change again after they caused something (a Service whose status Ripple writes
   * back is a new version of the event), so each node takes its newest version not after the times of the nodes it
   * caused — resolved from the sinks up. Each edge's latency is its target's time minus the nearest timed hop above.
   */
  graph(direction: LineageGraph['direction'], root: string): LineageGraph {
    const incoming = new Map<string, string[]>();
    const outgoing = new Map<string, string[]>();
    for (const e of this.edges.values()) {
      incoming.set(e.to, [...(incoming.get(e.to) ?? []), e.from]);
      outgoing.set(e.from, [...(outgoing.get(e.from) ?? []), e.to]);
    }
    const bound = new Map<string, number | undefined>();
    const resolve = (id: string, depth = 0): number | undefined => {
      if (bound.has(id)) return bound.get(id);
      bound.set(id, undefined); // cycle guard
      const n = this.nodes.get(id);
      const below = (outgoing.get(id) ?? []).map((c) => (depth > 32 ? undefined : resolve(c, depth + 1))).filter((t): t is number => t !== undefined);
      const notAfter = below.length ? Math.min(...below) : undefined;
      const c = this.clocks.get(id);
      if (n && c && !n.withdrawn) {
        const observed = pickVersion(c.versions, notAfter);
        const time = observed ?? c.api;
        if (time !== undefined) Object.assign(n, { time, timeSource: observed !== undefined ? 'observed' : 'api' });
      }
      // Untimed nodes pass their children's bound up.
      const t = n?.time ?? notAfter;
      bound.set(id, t);
      return t;
    };
    for (const id of this.nodes.keys()) resolve(id);
    const timed = (id: string, depth = 0): LineageNode | undefined => {
      const n = this.nodes.get(id);
      if (!n || depth > 32) return undefined;
      if (n.time !== undefined) return n;
      for (const p of incoming.get(id) ?? []) {
        const t = timed(p, depth + 1);
        if (t) return t;
      }
      return undefined;
    };
    const edges = [...this.edges.values()].map((e) => {
      const to = this.nodes.get(e.to);
      const from = timed(e.from);
      if (to?.time === undefined || !from || from.time === undefined || to.withdrawn) return e;
      // Negative: the hop's output predates the newest version of its input (the event changed again and nothing
      // needed rewriting) — there is no latency to show.
      if (to.time < from.time) return e;
      return { ...e, latencyMs: to.time - from.time, ...(to.timeSource === 'api' || from.timeSource === 'api' ? { approx: true } : {}) };
    });
    return { direction, root, nodes: [...this.nodes.values()], edges, missing: this.missing };
  }
}

const eventNodeId = (cluster: string, id: string) => `event|${cluster}|${id}`;

function findDeployed(m: FleetModel, ref: ObjRef): Obj | undefined {
  for (const d of m.deployed()) {
    if (d.where === ref.cluster && d.obj.kind === ref.kind && d.obj.apiVersion === ref.apiVersion && (d.obj.metadata.namespace ?? '') === (ref.namespace ?? '') && d.obj.metadata.name === ref.name) return d.obj;
  }
  // A profile deployed by a profile lives in the management cluster's ClusterProfile cache too.
  if (ref.cluster === MGMT_ID && ref.kind === 'ClusterProfile') {
    const p = m.get('clusterProfile', undefined, ref.name);
    if (p?.metadata.labels?.[Labels.reason]) return p;
  }
  return undefined;
}

/** summaryFor finds the ClusterSummary of a profile stamped on a deployed object (clustersummary annotation). */
function summaryFor(m: FleetModel, profile: string, stamp: string | undefined): Obj | undefined {
  return m.list('clusterSummary').find((cs) => {
    if (summaryProfile(cs).name !== profile) return false;
    const s = `${str(cs.spec?.clusterType) === 'Capi' ? 'capi' : 'sveltos'}-${str(cs.spec?.clusterNamespace)}-${str(cs.spec?.clusterName)}`;
    return !stamp || s === stamp;
  });
}

/** upstreamLineage is the chain that produced a deployed object, up to the event (and its EventSource). */
export function upstreamLineage(m: FleetModel, ref: ObjRef): LineageGraph {
  const b = new LineageBuilder(m);
  const obj = findDeployed(m, ref);
  if (!obj) {
    b.missing.push(`${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name} in ${ref.cluster} is not a deployed object the dashboard follows`);
    return b.graph('upstream', objKey(ref));
  }
  const root = b.node('object', ref, obj, { deployed: true });
  let cur: { id: string; obj: Obj } | undefined = { id: root, obj };
  for (let depth = 0; cur && depth < 8; depth++) cur = stepUp(m, b, cur.id, cur.obj);
  return b.graph('upstream', root);
}

// One hop up from a deployed object: its ClusterSummary, the ConfigMap/Secret it was rendered from, its profile.
// Returns the profile when that profile is itself a deployed object (keep climbing), else undefined.
function stepUp(m: FleetModel, b: LineageBuilder, id: string, obj: Obj): { id: string; obj: Obj } | undefined {
  const a = obj.metadata.annotations ?? {};
  const profileName = a[Annotations.ownerName];
  if (!profileName) {
    b.missing.push(`${obj.kind} ${obj.metadata.name} carries no ${Annotations.ownerName} annotation`);
    return undefined;
  }
  const ownerKind = a[Annotations.ownerKind] ?? 'ClusterProfile';
  const cs = summaryFor(m, profileName, a[Annotations.clusterSummary]);
  let below = id;
  if (cs) {
    const sid = b.node('summary', m.mgmtRef(cs), cs, { status: featureStatus(cs), message: featureFailure(cs) });
    b.edge(sid, id);
    below = sid;
  } else {
    b.missing.push(`ClusterSummary of ${ownerKind} ${profileName} for ${a[Annotations.clusterSummary] ?? 'its cluster'} not found`);
  }
  const profile = ownerKind === 'ClusterProfile' ? m.get('clusterProfile', undefined, profileName) : m.list('profile').find((p) => p.metadata.name === profileName);
  const pref: ObjRef = { cluster: MGMT_ID, apiVersion: 'config.projectsveltos.io/v1beta1', kind: ownerKind, namespace: profile?.metadata.namespace, name: profileName };
  const pid = b.node('profile', pref, profile, profile ? {} : { withdrawn: true });
  b.edge(pid, below);
  if (!profile) b.missing.push(`${ownerKind} ${profileName} not found`);
  // Resources the deployer read to render (templateResourceRefs, from the management cluster): when Ripple deployed
  // them too (seed 000's upstream load-balancer Service), they are hops of the same lineage.
  if (cs) {
    for (const t of arr(profile?.spec?.templateResourceRefs)) {
      const r = (t.resource ?? {}) as Record<string, unknown>;
      const tref: ObjRef = { cluster: MGMT_ID, apiVersion: str(r.apiVersion) ?? 'v1', kind: str(r.kind) ?? '', namespace: str(r.namespace), name: str(r.name) ?? '' };
      const dep = findDeployed(m, tref);
      if (!dep) continue;
      const tid = b.node('object', tref, dep, { deployed: true });
      b.edge(tid, below);
      const da = dep.metadata.annotations ?? {};
      const owner = da[Annotations.ownerName] ? summaryFor(m, da[Annotations.ownerName], da[Annotations.clusterSummary]) : undefined;
      if (owner) b.edge(b.node('summary', m.mgmtRef(owner), owner, { status: featureStatus(owner), message: featureFailure(owner) }), tid);
    }
  }
  // The ConfigMap/Secret the object was rendered from, referenced by the profile's policyRefs.
  const refName = a[Annotations.referenceName];
  if (refName) {
    const kind = a[Annotations.referenceKind] ?? 'ConfigMap';
    const ns = a[Annotations.referenceNamespace];
    const src = kind === 'Secret' ? m.get('secret', ns, refName) : m.get('configMap', ns, refName);
    const generated = !!src?.metadata.labels?.[EventTriggerLabels.eventTriggerName];
    const cid = b.node(generated ? 'instantiated' : 'config', { cluster: MGMT_ID, apiVersion: 'v1', kind, namespace: ns, name: refName }, src);
    b.edge(cid, pid);
  }
  if (!profile) return undefined;
  const l = profile.metadata.labels ?? {};
  if (l[EventTriggerLabels.eventTriggerName]) {
    eventChainUp(m, b, profile, pid);
    return undefined;
  }
  if (l[Labels.reason] && profile.metadata.annotations?.[Annotations.ownerName]) {
    b.nodes.get(pid)!.deployed = true;
    return { id: pid, obj: profile };
  }
  return undefined;
}

// A generated profile: its EventTrigger, the ConfigMaps/Secrets instantiated for the same event, the EventReport
// and the event itself.
function eventChainUp(m: FleetModel, b: LineageBuilder, profile: Obj, pid: string): void {
  const l = profile.metadata.labels ?? {};
  const trigger = l[EventTriggerLabels.eventTriggerName];
  const cluster = clusterLabel(l[EventTriggerLabels.clusterNamespace], l[EventTriggerLabels.clusterName]);
  const eventId = profile.metadata.annotations?.[RippleAnnotations.event];
  const t = m.get('eventTrigger', undefined, trigger) ?? m.get('eventBasedAddOn', undefined, trigger);
  const tid = b.node('trigger', { cluster: MGMT_ID, apiVersion: t?.apiVersion ?? 'lib.projectsveltos.io/v1beta1', kind: t?.kind ?? 'EventTrigger', name: trigger }, t);
  if (!t) b.missing.push(`EventTrigger ${trigger} not found`);
  // Instantiated ConfigMaps/Secrets the profile references go between the trigger and the profile.
  const refs = new Set(arr(profile.spec?.policyRefs).map((p) => `${str(p.kind) ?? 'ConfigMap'}|${str(p.namespace) ?? ''}|${str(p.name)}`));
  let viaInstantiated = false;
  for (const [kind, list] of [['ConfigMap', m.list('configMap')], ['Secret', m.list('secret')]] as const) {
    for (const c of list) {
      if (!refs.has(`${kind}|${c.metadata.namespace ?? ''}|${c.metadata.name}`)) continue;
      const cid = b.node('instantiated', m.mgmtRef(c), c);
      b.edge(tid, cid);
      b.edge(cid, pid);
      viaInstantiated = true;
    }
  }
  if (!viaInstantiated) b.edge(tid, pid);
  const esName = str(t?.spec?.eventSourceName) ?? l[EventTriggerLabels.eventSourceName];
  if (!esName) return;
  const es = m.get('eventSource', undefined, esName);
  const report = m.get('eventReport', l[EventTriggerLabels.clusterNamespace], reportNameFor(l[EventTriggerLabels.clusterType], esName, l[EventTriggerLabels.clusterName] ?? ''));
  const rref: ObjRef = { cluster: MGMT_ID, apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport', namespace: l[EventTriggerLabels.clusterNamespace], name: reportNameFor(l[EventTriggerLabels.clusterType], esName, l[EventTriggerLabels.clusterName] ?? '') };
  const rid = b.node('report', rref, report, report ? { status: str(report.status?.phase), message: str(report.status?.failureMessage) } : { withdrawn: true });
  b.edge(rid, tid);
  if (es) b.edge(b.node('source', m.mgmtRef(es), es), rid);
  if (!report) {
    b.missing.push(`EventReport ${rref.namespace}/${rref.name} not found`);
    return;
  }
  const matched = arr(report.spec?.matchingResources).find((r) =>
    eventId ? resourceEventId(r as never) === eventId : str(r.name) === l[EventTriggerLabels.resourceName] && (str(r.namespace) ?? '') === (l[EventTriggerLabels.resourceNamespace] ?? ''),
  );
  if (!matched) {
    b.missing.push(`EventReport ${rref.namespace}/${rref.name} no longer lists the event ${eventId ?? l[EventTriggerLabels.resourceName] ?? ''}`);
    return;
  }
  const eref: ObjRef = { cluster, apiVersion: str(matched.apiVersion) ?? '', kind: str(matched.kind) ?? '', namespace: str(matched.namespace), name: str(matched.name) ?? '' };
  const id = resourceEventId(eref as never);
  const eid = eventNodeId(cluster, id);
  b.nodes.set(eid, { id: eid, role: 'event', ref: eref });
  b.clock(eid, m.eventTimes(`${cluster}|${id}`), apiTime(report));
  b.edge(eid, rid);
}

function featureStatus(cs: Obj): string | undefined {
  const fs = arr(cs.status?.featureSummaries);
  return fs.map((f) => str(f.status)).find((s) => s && /Fail/.test(s)) ?? str(fs[0]?.status);
}

function featureFailure(cs: Obj): string | undefined {
  return arr(cs.status?.featureSummaries)
    .map((f) => str(f.failureMessage))
    .filter(Boolean)
    .join('\n') || undefined;
}

/** downstreamLineage is everything an event caused: generated objects, deployments (recursively), withdrawals. */
export function downstreamLineage(m: FleetModel, ref: ObjRef): LineageGraph {
  const b = new LineageBuilder(m);
  const id = resourceEventId(ref as never);
  const eventKey = `${ref.cluster}|${id}`;
  const reports = m.list('eventReport').filter(
    (r) => clusterLabel(str(r.spec?.clusterNamespace) ?? r.metadata.namespace, str(r.spec?.clusterName)) === ref.cluster && arr(r.spec?.matchingResources).some((x) => resourceEventId(x as never) === id),
  );
  const eid = eventNodeId(ref.cluster, id);
  b.nodes.set(eid, { id: eid, role: 'event', ref, ...(reports.length === 0 ? { status: 'gone' } : {}) });
  const reportIds = new Map<string, string>();
  for (const r of reports) {
    const rid = b.node('report', m.mgmtRef(r), r, { status: str(r.status?.phase), message: str(r.status?.failureMessage) });
    b.edge(eid, rid);
    reportIds.set(str(r.spec?.eventSourceName) ?? '', rid);
  }
  // Generated objects for this event: labels name the trigger and source cluster; the annotation names the event.
  const mine = (o: Obj) => {
    const l = o.metadata.labels ?? {};
    return !!l[EventTriggerLabels.eventTriggerName] && clusterLabel(l[EventTriggerLabels.clusterNamespace], l[EventTriggerLabels.clusterName]) === ref.cluster && o.metadata.annotations?.[RippleAnnotations.event] === id;
  };
  const triggerNode = (name: string) => {
    const t = m.get('eventTrigger', undefined, name) ?? m.get('eventBasedAddOn', undefined, name);
    const tid = b.node('trigger', { cluster: MGMT_ID, apiVersion: t?.apiVersion ?? 'lib.projectsveltos.io/v1beta1', kind: t?.kind ?? 'EventTrigger', name }, t);
    const rid = reportIds.get(str(t?.spec?.eventSourceName) ?? '');
    b.edge(rid ?? eid, tid);
    return tid;
  };
  const profileIds = new Map<string, string>();
  for (const [kind, list] of [['ConfigMap', m.list('configMap')], ['Secret', m.list('secret')]] as const) {
    for (const c of list.filter(mine)) {
      const tid = triggerNode(c.metadata.labels![EventTriggerLabels.eventTriggerName]);
      b.edge(tid, b.node('instantiated', { ...m.mgmtRef(c), kind }, c));
    }
  }
  for (const p of m.list('clusterProfile').filter(mine)) {
    const tid = triggerNode(p.metadata.labels![EventTriggerLabels.eventTriggerName]);
    const pid = b.node('profile', m.mgmtRef(p), p);
    profileIds.set(p.metadata.name, pid);
    const refs = new Set(arr(p.spec?.policyRefs).map((x) => `${str(x.kind) ?? 'ConfigMap'}|${str(x.namespace) ?? ''}|${str(x.name)}`));
    let via = false;
    for (const n of b.nodes.values()) {
      if (n.role === 'instantiated' && refs.has(`${n.ref.kind}|${n.ref.namespace ?? ''}|${n.ref.name}`)) {
        b.edge(n.id, pid);
        via = true;
      }
    }
    if (!via) b.edge(tid, pid);
    deployedBy(m, b, p.metadata.name, pid, profileIds, 0);
  }
  b.clock(eid, m.eventTimes(eventKey), apiTime(reports[0]));
  // What was withdrawn for this event (remembered since the dashboard started).
  for (const w of m.withdrawn(eventKey)) {
    const key = objKey(w.ref);
    if (b.nodes.has(key)) continue;
    const wid = b.node(w.role === 'instantiated' ? 'instantiated' : w.role, w.ref, undefined, { withdrawn: true, time: w.time, timeSource: 'observed', status: 'withdrawn' });
    const parent = w.role === 'object' && w.profile ? profileIds.get(w.profile) : undefined;
    b.edge(parent ?? eid, wid);
  }
  return b.graph('downstream', eid);
}

// Everything a profile deployed, through its ClusterSummaries; profiles it deployed are followed in turn.
function deployedBy(m: FleetModel, b: LineageBuilder, profile: string, pid: string, profileIds: Map<string, string>, depth: number): void {
  if (depth > 8) return;
  const summaries = m.list('clusterSummary').filter((cs) => summaryProfile(cs).name === profile);
  const deployed = m.deployed().filter((d) => d.obj.metadata.annotations?.[Annotations.ownerName] === profile);
  for (const cs of summaries) {
    const sid = b.node('summary', m.mgmtRef(cs), cs, { status: featureStatus(cs), message: featureFailure(cs) });
    b.edge(pid, sid);
    const stamp = `${str(cs.spec?.clusterType) === 'Capi' ? 'capi' : 'sveltos'}-${str(cs.spec?.clusterNamespace)}-${str(cs.spec?.clusterName)}`;
    for (const d of deployed.filter((x) => x.obj.metadata.annotations?.[Annotations.clusterSummary] === stamp)) {
      const ref: ObjRef = { cluster: d.where, apiVersion: d.obj.apiVersion, kind: d.obj.kind, namespace: d.obj.metadata.namespace, name: d.obj.metadata.name };
      if (d.obj.kind === 'ClusterProfile' && d.where === MGMT_ID) {
        const cid = b.node('profile', ref, m.get('clusterProfile', undefined, d.obj.metadata.name) ?? d.obj, { deployed: true });
        b.edge(sid, cid);
        profileIds.set(d.obj.metadata.name, cid);
        deployedBy(m, b, d.obj.metadata.name, cid, profileIds, depth + 1);
      } else {
        b.edge(sid, b.node('object', ref, d.obj, { deployed: true }));
      }
    }
  }
}
