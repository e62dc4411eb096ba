// checks: SveltosCluster readinessChecks / livenessChecks (Go: sveltoscluster-manager controllers/cluster_checks.go).
// Each ClusterCheck selects resources of the managed cluster with resourceSelectors (group/version/kind, namespace,
// name, labelFilters, selector, per-resource evaluate/evaluateCEL — the EventSource selector semantics, so src/match
// does the selecting) and runs its `condition` Lua: evaluate(resources) returns {pass = bool, message = string}
// (the API docs call the field "result"; both are read). Checks run in order; the first that does not pass decides.
// A script that does not load or run, or a selector naming a kind the cluster does not serve, is an error of that
// check (reported with its name), never a crash: other checks and other clusters are unaffected.
import type { ResourceSelector } from '../api/index.js';
import { errorMessage, type KubeClient, type KubeObject } from '../kube/index.js';
import type { LuaRuntime } from '../lua/index.js';
import { apiVersionOf, compileEventSource, gvkKey, type GroupVersionKind, type MatchDiagnostic } from '../match/index.js';

/** ClusterCheck is one entry of spec.readinessChecks / spec.livenessChecks. */
export interface ClusterCheck {
  name: string;
  resourceSelectors?: ResourceSelector[];
  condition: string;
}

/** CheckPhase says which list a check belongs to. */
export type CheckPhase = 'readiness' | 'liveness';

/** ChecksOutcome is the result of running a list of checks: all passed, or the first that did not and why. */
export type ChecksOutcome = { ok: true } | { ok: false; check: string; message: string; error: boolean };

/** checkProblems validates a list of checks without running them (duplicate or missing names); pure. */
export function checkProblems(phase: CheckPhase, checks: readonly ClusterCheck[] | undefined): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  (checks ?? []).forEach((c, i) => {
    const field = `spec.${phase}Checks[${i}]`;
    if (!c?.name) problems.push(`${field}.name is required`);
    else if (seen.has(c.name)) problems.push(`${field}.name ${c.name} is used twice: check names must be unique`);
    else seen.add(c.name);
  });
  return problems;
}

/** runClusterChecks lists what each check selects in the cluster behind `client` and runs its condition. */
export async function runClusterChecks(
  client: KubeClient,
  checks: readonly ClusterCheck[],
  runtime: LuaRuntime,
  opts: { signal?: AbortSignal } = {},
): Promise<ChecksOutcome> {
  for (const check of checks) {
    const out = await runOne(client, check, runtime, opts);
    if (!out.ok) return out;
  }
  return { ok: true };
}

async function runOne(client: KubeClient, check: ClusterCheck, runtime: LuaRuntime, opts: { signal?: AbortSignal }): Promise<ChecksOutcome> {
  const name = check.name;
  const compiled = compileEventSource({ metadata: { name }, spec: { resourceSelectors: check.resourceSelectors ?? [] } } as never, runtime);
  const broken = compiled.diagnostics.find((d) => d.code !== 'cel-compile');
  if (broken) return { ok: false, check: name, message: formatCheckDiagnostic(broken), error: true };
  // An empty condition passes (Go: validateCheck returns true for "").
  if ((check.condition ?? '').trim() === '') return { ok: true };
  const script = runtime.compile(check.condition);
  if (!script.ok) return { ok: false, check: name, message: `condition: ${script.failure.message}`, error: true };

  // One list per GVK (in the selectors' namespace when they all name the same one).
  const byGvk = new Map<string, { gvk: GroupVersionKind; namespaces: Set<string> }>();
  for (const s of compiled.selectors) {
    const k = gvkKey(s.gvk);
    const e = byGvk.get(k) ?? { gvk: s.gvk, namespaces: new Set<string>() };
    e.namespaces.add(s.namespace ?? '');
    byGvk.set(k, e);
  }
  const objects = new Map<string, KubeObject[]>();
  for (const [k, { gvk, namespaces }] of byGvk) {
    const ns = namespaces.size === 1 ? [...namespaces][0] : '';
    try {
      const list = await client.list<KubeObject>({ apiVersion: apiVersionOf(gvk.group, gvk.version), kind: gvk.kind }, { ...(ns ? { namespace: ns } : {}), ...(opts.signal ? { signal: opts.signal } : {}) });
      objects.set(k, list.items);
    } catch (err) {
      return { ok: false, check: name, message: `listing ${gvk.kind} (${apiVersionOf(gvk.group, gvk.version)}): ${errorMessage(err)}`, error: true };
    }
  }
  const selection = compiled.select(objects as ReadonlyMap<string, readonly Record<string, unknown>[]>);
  const selectErr = selection.diagnostics.find((d) => d.code !== 'cel-evaluate');
  if (selectErr) return { ok: false, check: name, message: formatCheckDiagnostic(selectErr), error: true };
  const r = runtime.check(script.script, selection.resources);
  if (!r.ok) return { ok: false, check: name, message: `condition: ${r.failure.message}`, error: true };
  if (!r.pass) return { ok: false, check: name, message: r.message ? `did not pass: ${r.message}` : 'did not pass', error: false };
  return { ok: true };
}

function formatCheckDiagnostic(d: MatchDiagnostic): string {
  const where = d.field.replace(/^spec\./, '');
  const obj = d.object ? ` (${d.object.kind ?? ''} ${d.object.namespace ? `${d.object.namespace}/` : ''}${d.object.name ?? ''})` : '';
  return `${where}${d.line !== undefined ? ` line ${d.line}` : ''}${obj}: ${d.message}`;
}
