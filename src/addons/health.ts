// health.ts: the pure core of validateHealths — which checks gate a feature, which objects a check selects (group,
// version, kind, namespace, labelFilters), and the verdict of its Lua `evaluate` script or evaluateCEL rules over
// them. No I/O: the objects come from the caller (health-feature.ts lists them in the target cluster).
//
// Contracts (Sveltos):
// - Lua: the script defines `function evaluate()`; the global `obj` is the object; it returns a table
//   `{healthy = bool, message = string}` (json.Unmarshal semantics: a missing `healthy` is false).
// - CEL: rules evaluated in order with the variable `resource`; the object is healthy when one returns true.
// - Every selected object must be healthy; the first unhealthy one (in namespace/name order) names the check's
//   message. A check that selects no object passes (Sveltos loops over the list it got).
// Go: addon-controller controllers/health_checks.go (validateHealthPolicies), libsveltos lib/cel.
import type { ClusterProfileSpec, ValidateHealth } from '../api/index.js';
import type { JsonValue, LuaRuntime } from '../lua/index.js';
import type { KubeObject } from '../kube/index.js';
import { compileCelRules, compileSelectorLabels, evaluateCelRules } from '../match/index.js';

/** HealthFeature is the featureID a check runs after. */
export type HealthFeature = ValidateHealth['featureID'];

/** HealthVerdict is the outcome of one check (or of all checks of a feature). */
export type HealthVerdict =
  | { state: 'healthy' }
  /** An object is not healthy yet: the feature waits (Provisioning) with this message. */
  | { state: 'unhealthy'; check: string; message: string }
  /** The check cannot be evaluated (bad Lua, bad CEL, unsupported kind of check): a failure in status. */
  | { state: 'error'; check: string; message: string; nonRetriable: boolean };

/** checksFor returns the validateHealths of a spec that run after the given feature. */
export function checksFor(spec: ClusterProfileSpec, feature: HealthFeature): ValidateHealth[] {
  return (spec.validateHealths ?? []).filter((c) => c.featureID === feature);
}

/** apiVersionOf is the apiVersion of a check's group/version (`v1` for the core group). */
export function checkApiVersion(c: ValidateHealth): string {
  return c.group ? `${c.group}/${c.version ?? ''}` : (c.version ?? '');
}

/**
 * problemOf says why a check cannot run at all (unsupported parts, missing kind/version), or undefined. These are
 * refused visibly instead of being skipped.
 */
export function problemOf(c: ValidateHealth): string | undefined {
  if (c.jobCheck) return `validateHealths ${c.name}: jobCheck is not supported by Ripple yet`;
  if ((c.metricQueries ?? []).length > 0 || c.metricSource) return `validateHealths ${c.name}: metricQueries/metricSource are not supported by Ripple yet`;
  if (!c.kind) return `validateHealths ${c.name}: kind is required (metric-only checks are not supported by Ripple yet)`;
  if (!c.version) return `validateHealths ${c.name}: version is required when kind is set`;
  const labels = compileSelectorLabels(c.labelFilters, undefined, `validateHealths ${c.name}`);
  if (labels.problems.length > 0) return labels.problems.map((p) => `${p.field}: ${p.message}`).join('; ');
  return undefined;
}

/** selectObjects filters listed objects by the check's namespace and labelFilters, sorted by namespace/name. */
export function selectObjects(c: ValidateHealth, objects: readonly KubeObject[]): KubeObject[] {
  const labels = compileSelectorLabels(c.labelFilters, undefined, 'labelFilters').labels;
  const hasFilters = (c.labelFilters ?? []).length > 0;
  return objects
    .filter((o) => !c.namespace || o.metadata.namespace === c.namespace)
    .filter((o) => !hasFilters || labels.matches(o.metadata.labels ?? {}))
    .sort((a, b) => `${a.metadata.namespace ?? ''}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace ?? ''}/${b.metadata.name}`));
}

/** decodeHealthStatus is json.Unmarshal of a Lua result into {healthy bool; message string}. */
export function decodeHealthStatus(v: JsonValue): { healthy: boolean; message: string } | { error: string } {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return { error: 'lua script output is not a table with fields healthy and message' };
  const pick = (field: string): JsonValue | undefined => {
    if (Object.hasOwn(v, field)) return v[field];
    const k = Object.keys(v)
      .sort()
      .filter((x) => x.toLowerCase() === field)
      .pop();
    return k === undefined ? undefined : v[k];
  };
  const h = pick('healthy');
  const m = pick('message');
  if (h !== undefined && h !== null && typeof h !== 'boolean') return { error: `json: cannot unmarshal ${typeof h} into Go struct field healthStatus.healthy of type bool` };
  if (m !== undefined && m !== null && typeof m !== 'string') return { error: `json: cannot unmarshal ${typeof m} into Go struct field healthStatus.message of type string` };
  return { healthy: h === true, message: typeof m === 'string' ? m : '' };
}

const describe = (o: KubeObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

/**
 * evaluateCheck runs one check over the objects it selected. Lua failures (syntax, runtime error, wrong result)
 * and CEL rules that do not compile are errors; a CEL rule failing on one object counts as false for it.
 */
export function evaluateCheck(c: ValidateHealth, selected: readonly KubeObject[], lua: LuaRuntime | undefined): HealthVerdict {
  const problem = problemOf(c);
  if (problem) return { state: 'error', check: c.name, message: problem, nonRetriable: true };
  const cel = (c.evaluateCEL ?? []).length > 0 ? compileCelRules(c.evaluateCEL ?? []) : undefined;
  const badRule = cel?.find((r) => 'error' in r);
  if (badRule && 'error' in badRule) return { state: 'error', check: c.name, message: `validateHealths ${c.name}: evaluateCEL rule ${badRule.name}: ${badRule.error}`, nonRetriable: true };
  const script = c.script?.trim() ? c.script : undefined;
  if (script && !lua) return { state: 'error', check: c.name, message: `validateHealths ${c.name}: the Lua runtime is not available`, nonRetriable: false };
  if (script) {
    const compiled = lua!.compile(script);
    if (!compiled.ok) return { state: 'error', check: c.name, message: `validateHealths ${c.name}: invalid Lua script: ${compiled.failure.message}`, nonRetriable: true };
  }
  for (const o of selected) {
    if (cel) {
      const out = evaluateCelRules(cel, o as Parameters<typeof evaluateCelRules>[1]);
      if (!out.matched) {
        const why = out.failures.length > 0 ? ` (${out.failures.map((f) => `${f.name}: ${f.message}`).join('; ')})` : '';
        return { state: 'unhealthy', check: c.name, message: `validateHealths ${c.name}: ${describe(o)} is not healthy: no evaluateCEL rule is true${why}` };
      }
    }
    if (script) {
      const r = lua!.call(script, 'obj', o as unknown as Record<string, unknown>);
      if (!r.ok) return { state: 'error', check: c.name, message: `validateHealths ${c.name}: Lua script failed on ${describe(o)}: ${r.failure.message}`, nonRetriable: false };
      const d = decodeHealthStatus(r.value);
      if ('error' in d) return { state: 'error', check: c.name, message: `validateHealths ${c.name}: ${describe(o)}: ${d.error}`, nonRetriable: true };
      if (!d.healthy) return { state: 'unhealthy', check: c.name, message: `validateHealths ${c.name}: ${describe(o)} is not healthy${d.message ? `: ${d.message}` : ''}` };
    }
  }
  return { state: 'healthy' };
}

/** combine returns the first error, else the first unhealthy verdict, else healthy. */
export function combine(verdicts: readonly HealthVerdict[]): HealthVerdict {
  return verdicts.find((v) => v.state === 'error') ?? verdicts.find((v) => v.state === 'unhealthy') ?? { state: 'healthy' };
}
