// pages.tsx: the dashboard's pages. Each reads one or two API endpoints through useLive (refetched when the server
// says their topics changed) and filters on the server (the `q` parameter) as the user types.
import { useState } from 'preact/hooks';
import type { AddonRow, ClusterRow, EventRow, FailureRow, LineageGraph, MetricsView, ObjRef, Page, SourceRow, Summary, TriggerRow } from '../api-types.js';
import { BarChart, LineChart } from './charts.js';
import { ago, clock, latencyText, lineageHref, ms, useDebounced, useLive } from './data.js';
import { clusterText, layout, LineageView, nodeTitle } from './lineage-graph.js';
import { VirtualList } from './virtual-list.js';

const refText = (r: { kind: string; namespace?: string; name: string }) => `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;

function Search(p: { value: string; onInput: (v: string) => void; label: string; page?: Page<unknown>; placeholder?: string }) {
  return (
    <div class="toolbar">
      <input
        type="search"
        aria-label={p.label}
        placeholder={p.placeholder ?? 'filter: text, key=value (label), cluster:NAME, kind:KIND, name:TEXT'}
        value={p.value}
        onInput={(e) => p.onInput((e.currentTarget as HTMLInputElement).value)}
      />
      {p.page && (
        <span class="count" aria-live="polite">
          {p.page.matched === p.page.total ? `${p.page.total}` : `${p.page.matched} of ${p.page.total}`}
          {p.page.rows.length < p.page.matched ? ` — showing the first ${p.page.rows.length}; filter to narrow` : ''}
        </span>
      )}
    </div>
  );
}

// Card lists (failures, add-ons) ask the server for the first `limit` matches; virtualised lists get every match.
function useFiltered<T>(endpoint: string, topics: Parameters<typeof useLive>[1], limit?: number) {
  const [q, setQ] = useState('');
  const dq = useDebounced(q, 150);
  const { data, error } = useLive<Page<T>>(`${endpoint}?q=${encodeURIComponent(dq)}${limit ? `&limit=${limit}` : ''}`, topics);
  return { q, setQ, data, error };
}

function Status({ s }: { s?: string }) {
  if (!s) return null;
  const cls = /Fail|Down|Error|Conflict/.test(s) ? 'bad' : /Provisioned|Processed|Healthy|Ready/.test(s) ? 'ok' : /Provisioning|Removing|Deleting/.test(s) ? 'warn' : 'info';
  return <span class={`pill ${cls}`}>{s}</span>;
}

function Loading({ error }: { error?: string }) {
  return <div class="empty">{error ? `Cannot load: ${error}` : 'Loading…'}</div>;
}

// ---------------------------------------------------------------------------------------------------------------

/** FailuresPage lists every failure, newest first, with the exact message and where it was raised. */
export function FailuresPage() {
  const summary = useLive<Summary>('/api/summary', ['clusters', 'sources', 'triggers', 'addons', 'failures']).data;
  const { q, setQ, data, error } = useFiltered<FailureRow>('/api/failures', ['failures'], 200);
  return (
    <>
      <h1>Failures</h1>
      <p class="sub">Every failure in status (failureMessage) and every Warning Event of the management cluster, newest first — the exact message, and where it was raised.</p>
      {summary && (
        <div class="stats" aria-label="fleet summary">
          <div class={`stat${summary.failures ? ' bad' : ''}`}>
            <b>{summary.failures}</b>
            <span>failures</span>
          </div>
          <div class="stat">
            <b>
              {summary.ready}/{summary.clusters}
            </b>
            <span>clusters ready</span>
          </div>
          <div class="stat">
            <b>{summary.eventSources}</b>
            <span>EventSources</span>
          </div>
          <div class="stat">
            <b>{summary.eventTriggers}</b>
            <span>EventTriggers</span>
          </div>
          <div class="stat">
            <b>{summary.profiles}</b>
            <span>ClusterProfiles</span>
          </div>
          <div class="stat">
            <b>{summary.deployedObjects}</b>
            <span>deployed objects</span>
          </div>
        </div>
      )}
      <Search value={q} onInput={setQ} label="filter failures" page={data} />
      {!data ? (
        <Loading error={error} />
      ) : data.rows.length === 0 ? (
        <div class="ok-banner" role="status">
          {data.total === 0 ? 'No failures: every status is clean and there is no Warning Event.' : 'No failure matches the filter.'}
        </div>
      ) : (
        <ul style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="failures">
          {data.rows.map((f, i) => (
            <li class="card bad" key={`${f.where.kind}/${f.where.namespace}/${f.where.name}/${f.field}/${i}`} data-testid="failure">
              <header>
                <span class={`pill ${f.source === 'event' ? 'warn' : 'bad'}`}>{f.source === 'event' ? 'Warning Event' : 'status'}</span>
                <h3>
                  {refText(f.where)}
                  {f.cluster ? <span class="kv"> · cluster {f.cluster}</span> : null}
                </h3>
                <span class="kv">
                  <code>{f.field}</code>
                  {f.count && f.count > 1 ? ` · ×${f.count}` : ''}
                  {f.time ? ` · ${ago(f.time)}` : ''}
                </span>
              </header>
              <pre class="msg">{f.message}</pre>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

// ---------------------------------------------------------------------------------------------------------------

/** FleetPage lists the clusters (virtualised) with readiness, pause, shard and labels. */
export function FleetPage() {
  const { q, setQ, data, error } = useFiltered<ClusterRow>('/api/clusters', ['clusters']);
  return (
    <>
      <h1>Fleet</h1>
      <p class="sub">Registered clusters (SveltosClusters and Cluster API Clusters), clusters with failures first.</p>
      <Search value={q} onInput={setQ} label="filter clusters" page={data} placeholder="filter: name, env=prod (label), kind:SveltosCluster" />
      {!data ? (
        <Loading error={error} />
      ) : (
        <VirtualList
          label="clusters"
          rows={data.rows}
          rowHeight={40}
          height={Math.max(300, window.innerHeight - 230)}
          columns="minmax(160px,1.2fr) 90px 110px 80px 90px minmax(200px,2fr) 110px"
          header={['cluster', 'type', 'readiness', 'paused', 'shard', 'labels', 'profiles']}
          rowKey={(c) => `${c.type}:${c.id}`}
          render={(c) => [
            <span title={c.failureMessage}>
              <b>{c.id}</b>
            </span>,
            c.type === 'Sveltos' ? 'Sveltos' : 'Cluster API',
            <>
              <Status s={c.ready ? 'Ready' : 'Not ready'} /> {c.connection === 'Down' && <Status s="Down" />}
            </>,
            c.paused ? <span class="pill warn">paused</span> : <span class="kv">no</span>,
            c.shard ? <code>{c.shard}</code> : <span class="kv">—</span>,
            <span title={Object.entries(c.labels).map(([k, v]) => `${k}=${v}`).join('\n')}>
              {Object.entries(c.labels)
                .filter(([k]) => !k.startsWith('projectsveltos.io/'))
                .map(([k, v]) => (
                  <span class="chip" key={k}>
                    {k}={v}
                  </span>
                ))}
            </span>,
            <span>
              {c.profiles} {c.failedProfiles > 0 && <span class="pill bad">{c.failedProfiles} failed</span>}
            </span>,
          ]}
        />
      )}
    </>
  );
}

// ---------------------------------------------------------------------------------------------------------------

/** EventsPage shows EventSources with what they match per cluster, and every event (virtualised). */
export function EventsPage() {
  const { q, setQ, data, error } = useFiltered<SourceRow>('/api/sources', ['sources']);
  const events = useLive<Page<EventRow>>(`/api/events?q=${encodeURIComponent(useDebounced(q, 150))}`, ['sources']).data;
  return (
    <>
      <h1>Events</h1>
      <p class="sub">EventSources and what they match in each cluster (EventReports); each matched resource is an event — follow it to everything it caused.</p>
      <Search value={q} onInput={setQ} label="filter EventSources and events" page={data} />
      {!data ? (
        <Loading error={error} />
      ) : (
        data.rows.map((s) => (
          <section class={`card${s.matches.some((m) => m.failureMessage) ? ' bad' : ''}`} key={s.name} aria-label={`EventSource ${s.name}`}>
            <header>
              <h3>EventSource {s.name}</h3>
              <span class="kv">
                selects {s.selects.map((x) => <span class="chip" key={x}>{x}</span>)}
                {s.aggregated && <span class="pill info">aggregated</span>}
              </span>
            </header>
            {s.matches.length === 0 ? (
              <div class="kv">No EventReport yet: it matches nothing in any cluster.</div>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th>cluster</th>
                    <th>matches</th>
                    <th>report</th>
                  </tr>
                </thead>
                <tbody>
                  {s.matches.map((m) => (
                    <tr key={m.report}>
                      <td>{m.cluster}</td>
                      <td>
                        {m.resources.length === 0 ? <span class="kv">nothing</span> : m.resources.map((r) => (
                          <a class="chip" href={lineageHref('down', r)} key={`${r.kind}/${r.namespace}/${r.name}`}>
                            {refText(r)}
                          </a>
                        ))}
                        {m.failureMessage && <pre class="msg">{m.failureMessage}</pre>}
                      </td>
                      <td>
                        <code>{m.report}</code> <Status s={m.phase} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        ))
      )}
      <h2>Events ({events ? events.matched : '…'})</h2>
      {events && (
        <VirtualList
          label="events"
          rows={events.rows}
          rowHeight={38}
          height={420}
          columns="minmax(200px,2fr) minmax(120px,1fr) minmax(160px,1.2fr) 120px 150px"
          header={['resource', 'cluster', 'EventSource', 'seen', '']}
          rowKey={(e) => `${e.cluster}|${e.kind}|${e.namespace}|${e.name}|${e.eventSource}`}
          render={(e) => [<b>{refText(e)}</b>, e.cluster, e.eventSource, <span title={e.time ? new Date(e.time).toISOString() : ''}>{ago(e.time)}</span>, <a href={lineageHref('down', e)}>what it caused →</a>]}
        />
      )}
    </>
  );
}

// ---------------------------------------------------------------------------------------------------------------

/** TriggersPage shows EventTriggers with their per-cluster status and the profiles/ConfigMaps they generated. */
export function TriggersPage() {
  const { q, setQ, data, error } = useFiltered<TriggerRow>('/api/triggers', ['triggers']);
  return (
    <>
      <h1>EventTriggers</h1>
      <p class="sub">Each EventTrigger, the clusters it listens to, and the ClusterProfiles and ConfigMaps/Secrets it generated per event.</p>
      <Search value={q} onInput={setQ} label="filter EventTriggers" page={data} />
      {!data ? (
        <Loading error={error} />
      ) : data.rows.length === 0 ? (
        <div class="empty">No EventTrigger{q ? ' matches' : ' yet'}.</div>
      ) : (
        data.rows.map((t) => (
          <section class={`card${t.clusterInfo.some((c) => c.failureMessage) ? ' bad' : ''}`} key={t.name} aria-label={`${t.kind} ${t.name}`}>
            <header>
              <h3>
                {t.kind} {t.name}
              </h3>
              <span class="kv">
                EventSource <b>{t.eventSource}</b> · source clusters <code>{t.sourceClusters}</code> · {t.matchingClusters} matching · {t.oneForEvent ? 'one profile per event' : 'one profile per cluster'}
              </span>
            </header>
            {t.clusterInfo.map((c) => (
              <div key={c.cluster} class="kv">
                cluster <b>{c.cluster}</b> <Status s={c.status} />
                {c.failureMessage && <pre class="msg">{c.failureMessage}</pre>}
              </div>
            ))}
            {t.generated.length > 0 && (
              <table style={{ marginTop: '8px' }}>
                <thead>
                  <tr>
                    <th>generated</th>
                    <th>for cluster</th>
                    <th>event</th>
                  </tr>
                </thead>
                <tbody>
                  {t.generated.map((g) => (
                    <tr key={`${g.kind}/${g.namespace}/${g.name}`}>
                      <td>
                        {g.kind} <code>{g.namespace ? `${g.namespace}/` : ''}{g.name}</code> {g.deleting && <Status s="Deleting" />}
                      </td>
                      <td>{g.cluster}</td>
                      <td>
                        <code>{g.event ?? ''}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        ))
      )}
    </>
  );
}

// ---------------------------------------------------------------------------------------------------------------

/** AddonsPage shows, per ClusterSummary, the features' status and the objects deployed (failed first). */
export function AddonsPage() {
  const { q, setQ, data, error } = useFiltered<AddonRow>('/api/addons', ['addons'], 200);
  return (
    <>
      <h1>Add-ons</h1>
      <p class="sub">What each profile deployed to each cluster (ClusterSummaries): policyRefs and their objects, Helm releases, Kustomizations — failures first.</p>
      <Search value={q} onInput={setQ} label="filter add-ons" page={data} />
      {!data ? (
        <Loading error={error} />
      ) : data.rows.length === 0 ? (
        <div class="empty">No add-on deployed{q ? ' matches' : ' yet'}.</div>
      ) : (
        data.rows.map((a) => (
          <section class={`card${a.failed ? ' bad' : ''}`} key={`${a.summary.namespace}/${a.summary.name}`} aria-label={`${a.profile} in ${a.cluster}`} data-testid="addon">
            <header>
              <h3>
                cluster {a.cluster} · {a.profileKind} {a.profile}
              </h3>
              {a.features.map((f) => (
                <span key={f.featureID} class="kv">
                  {f.featureID} <Status s={f.status} /> {f.lastAppliedTime ? `applied ${ago(f.lastAppliedTime)}` : ''}
                </span>
              ))}
            </header>
            {a.features.filter((f) => f.failureMessage).map((f) => (
              <pre class="msg" key={f.featureID}>
                {f.failureMessage}
              </pre>
            ))}
            <div class="kv">
              policyRefs:{' '}
              {a.policyRefs.length === 0 ? 'none' : a.policyRefs.map((p) => <span class="chip" key={`${p.kind}/${p.namespace}/${p.name}`}>{`${p.kind} ${p.namespace ? `${p.namespace}/` : ''}${p.name}${p.deploymentType === 'Local' ? ' (Local)' : ''}`}</span>)}
            </div>
            {a.helmReleases.length > 0 && (
              <div class="kv">
                Helm:{' '}
                {a.helmReleases.map((h) => (
                  <span class="chip" key={`${h.releaseNamespace}/${h.releaseName}`}>
                    {h.releaseNamespace}/{h.releaseName} {h.chart}@{h.version} {h.status ?? ''}
                  </span>
                ))}
              </div>
            )}
            {a.kustomizationRefs.length > 0 && (
              <div class="kv">
                Kustomize:{' '}
                {a.kustomizationRefs.map((k) => (
                  <span class="chip" key={`${k.kind}/${k.namespace}/${k.name}/${k.path}`}>
                    {k.kind} {k.namespace}/{k.name} {k.path}
                  </span>
                ))}
              </div>
            )}
            {a.objects.length > 0 && (
              <table style={{ marginTop: '8px' }}>
                <thead>
                  <tr>
                    <th>object</th>
                    <th>in</th>
                    <th>from</th>
                    <th>lineage</th>
                  </tr>
                </thead>
                <tbody>
                  {a.objects.map((o) => (
                    <tr key={`${o.cluster}/${o.kind}/${o.namespace}/${o.name}`}>
                      <td>
                        <b>{refText(o)}</b> {o.detail && <span class="kv">({o.detail})</span>} {o.adopted && <span class="pill info">adopted: {o.adopted}</span>}
                      </td>
                      <td>
                        {clusterText(o.cluster)} {o.deploymentType === 'Local' && <span class="pill info">Local</span>}
                      </td>
                      <td>{o.source ? <code>{`${o.source.kind} ${o.source.namespace ?? ''}/${o.source.name}`}</code> : ''}</td>
                      <td>
                        <a href={lineageHref('up', o)} aria-label={`lineage of ${refText(o)} in ${clusterText(o.cluster)}`}>
                          where it came from ←
                        </a>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        ))
      )}
    </>
  );
}

// ---------------------------------------------------------------------------------------------------------------

/** LineagePage draws the lineage of a deployed object (dir=up) or of an event (dir=down); without one, offers both. */
export function LineagePage({ params }: { params: URLSearchParams }) {
  const dir = params.get('dir') === 'down' ? 'down' : 'up';
  const ref: ObjRef | undefined = params.get('name')
    ? { cluster: params.get('cluster') ?? '', apiVersion: params.get('apiVersion') ?? '', kind: params.get('kind') ?? '', namespace: params.get('namespace') ?? undefined, name: params.get('name') ?? '' }
    : undefined;
  const path = ref ? `/api/lineage/${dir === 'up' ? 'upstream' : 'downstream'}?${params.toString()}` : undefined;
  const { data, error } = useLive<LineageGraph>(path, ['lineage']);
  if (!ref) return <LineagePicker />;
  const hops = data ? data.edges.filter((e) => e.latencyMs !== undefined) : [];
  const byId = new Map(data?.nodes.map((n) => [n.id, n]) ?? []);
  const events = data?.nodes.filter((n) => n.role === 'event') ?? [];
  const objects = data?.nodes.filter((n) => n.role === 'object' || (n.role === 'profile' && n.deployed)) ?? [];
  const first = events[0]?.time;
  const lastObj = Math.max(...objects.map((o) => o.time ?? -Infinity));
  const approx = events[0]?.timeSource === 'api' || objects.some((o) => o.timeSource === 'api');
  return (
    <>
      <h1>Lineage</h1>
      <p class="sub">
        {dir === 'up' ? 'Where ' : 'What '}
        <b>{refText(ref)}</b> in <b>{clusterText(ref.cluster)}</b> {dir === 'up' ? 'came from: the event and every hop that led to it.' : 'caused: everything generated, deployed and withdrawn for this event.'}{' '}
        <a href="#/lineage">choose another</a>
      </p>
      {!data ? (
        <Loading error={error} />
      ) : (
        <>
          {data.missing.length > 0 && (
            <div class="warnbox" role="status">
              Incomplete: {data.missing.join('; ')}
            </div>
          )}
          {first !== undefined && Number.isFinite(lastObj) && objects.length > 0 && (
            <div class="stats">
              <div class="stat">
                <b>{lastObj >= first ? latencyText({ latencyMs: lastObj - first, approx }) : '—'}</b>
                <span>event → last add-on</span>
              </div>
              <div class="stat">
                <b>{data.nodes.length}</b>
                <span>objects in the chain</span>
              </div>
              <div class="stat">
                <b>{data.nodes.filter((n) => n.withdrawn).length}</b>
                <span>withdrawn</span>
              </div>
            </div>
          )}
          <LineageView graph={data} />
          <h2>Hops</h2>
          <table aria-label="hops and latencies">
            <thead>
              <tr>
                <th>from</th>
                <th>to</th>
                <th>at</th>
                <th>latency</th>
              </tr>
            </thead>
            <tbody>
              {sortedEdges(data).map((e) => {
                const a = byId.get(e.from)!;
                const b = byId.get(e.to)!;
                return (
                  <tr key={`${e.from}→${e.to}`} data-testid="hop">
                    <td>
                      <span class="kv">{a.role}</span> {nodeTitle(a)} <span class="kv">({clusterText(a.ref.cluster)})</span>
                    </td>
                    <td>
                      <span class="kv">{b.role}</span> {nodeTitle(b)} <span class="kv">({clusterText(b.ref.cluster)})</span> {b.withdrawn && <Status s="withdrawn" />}
                    </td>
                    <td class="mono">{clock(b.time)}</td>
                    <td class="mono">{latencyText(e)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <p class="kv">
            Times are when the dashboard's watches saw each change (millisecond precision); marked ≈ where only an object's own timestamp (seconds) is known — objects that existed before the dashboard started. {hops.length} hop(s) timed.
          </p>
        </>
      )}
    </>
  );
}

// Hops in causal order: by the layer of their source in the drawing, then by time.
function sortedEdges(g: LineageGraph) {
  const pos = layout(g);
  const t = (id: string) => g.nodes.find((n) => n.id === id)?.time ?? 0;
  return [...g.edges].sort((a, b) => (pos.get(a.from)?.layer ?? 0) - (pos.get(b.from)?.layer ?? 0) || (pos.get(a.to)?.layer ?? 0) - (pos.get(b.to)?.layer ?? 0) || t(a.to) - t(b.to));
}

function LineagePicker() {
  const addons = useLive<Page<AddonRow>>('/api/addons', ['addons']).data;
  const events = useLive<Page<EventRow>>('/api/events', ['sources']).data;
  const objects = addons?.rows.flatMap((a) => a.objects) ?? [];
  return (
    <>
      <h1>Lineage</h1>
      <p class="sub">Pick a deployed object to see the event and every hop that produced it, or an event to see everything it caused.</p>
      <div class="pickers">
        <section class="card">
          <h3>Deployed objects</h3>
          {objects.length === 0 ? (
            <div class="kv">None yet.</div>
          ) : (
            <ul>
              {objects.slice(0, 200).map((o) => (
                <li key={`${o.cluster}/${o.kind}/${o.namespace}/${o.name}`}>
                  <a href={lineageHref('up', o)}>
                    {refText(o)} in {clusterText(o.cluster)}
                  </a>
                </li>
              ))}
            </ul>
          )}
        </section>
        <section class="card">
          <h3>Events</h3>
          {!events || events.rows.length === 0 ? (
            <div class="kv">None yet.</div>
          ) : (
            <ul>
              {events.rows.slice(0, 200).map((e) => (
                <li key={`${e.cluster}/${e.kind}/${e.namespace}/${e.name}/${e.eventSource}`}>
                  <a href={lineageHref('down', e)}>
                    {refText(e)} in {e.cluster}
                  </a>{' '}
                  <span class="kv">({e.eventSource})</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </>
  );
}

// ---------------------------------------------------------------------------------------------------------------

const secs = (v: number) => ms(v * 1000);
const shortSecs = (v: number) => (v < 1 ? `${+(v * 1000).toPrecision(3)}ms` : `${+v.toPrecision(3)}s`);

/** MetricsPage plots the pipeline's metrics from the process's Prometheus registry. */
export function MetricsPage() {
  const { data, error } = useLive<MetricsView>('/api/metrics', ['metrics']);
  if (!data) return <Loading error={error} />;
  const s = data.samples;
  return (
    <>
      <h1>Metrics</h1>
      <p class="sub">From the Prometheus metrics this process exposes, sampled every {data.intervalMs / 1000} s (the last {s.length * data.intervalMs < 120_000 ? `${Math.round((s.length * data.intervalMs) / 1000)} s` : `${Math.round((s.length * data.intervalMs) / 60000)} min`}).</p>
      <div class="plots">
        <section class="plot">
          <h3>Event → add-on latency over time</h3>
          <p>Quantiles per interval of ripple_event_to_addon_seconds (EventReport lists a resource → add-on object written).</p>
          <LineChart
            title="event to add-on latency quantiles"
            unit={secs}
            empty="No event has reached an add-on since the dashboard started."
            series={[
              { name: 'p50', color: '#2563eb', points: s.map((x) => ({ t: x.t, v: x.p50 })) },
              { name: 'p90', color: '#d97706', points: s.map((x) => ({ t: x.t, v: x.p90 })) },
              { name: 'p99', color: '#dc2626', points: s.map((x) => ({ t: x.t, v: x.p99 })) },
            ]}
          />
        </section>
        <section class="plot">
          <h3>Events and failures per second</h3>
          <p>Matching EventSource evaluations (ripple_agent_evaluations_total) and failed deployments + instantiations.</p>
          <LineChart
            title="events and failures per second"
            unit={(v) => (v >= 10 ? v.toFixed(0) : v.toFixed(1))}
            empty="Collecting samples…"
            series={[
              { name: 'events/s', color: '#2563eb', points: s.map((x) => ({ t: x.t, v: x.eventsPerSecond })) },
              { name: 'failures/s', color: '#dc2626', points: s.map((x) => ({ t: x.t, v: x.failuresPerSecond })) },
            ]}
          />
        </section>
        {data.histograms.map((h) => (
          <section class="plot" key={h.name}>
            <h3>{h.name}</h3>
            <p>
              {h.help} {h.count > 0 ? `${h.count} observations, mean ${secs(h.sum / h.count)}.` : 'No observation yet.'}
            </p>
            <BarChart title={`${h.name}: observations per bucket (upper bound)`} buckets={h.buckets} unit={shortSecs} />
          </section>
        ))}
      </div>
    </>
  );
}
