// validate: Sveltos' EventSource validation layout as a pure function — an EventSource plus resources that must
// match and resources that must not, checked one by one (Go: sveltos-agent pkg/evaluation/validate_test.go
// verifyEvent). Ripple checks each resource against the whole selector (GVK, namespace, name, labels, CEL, Lua),
// where Sveltos' test only runs the Lua of selectors with the resource's GVK; aggregatedSelection is run over both
// sets together and must return every matching resource and no non-matching one.
import type { LuaRuntime } from '../lua/index.js';
import { compileEventSource } from './eventsource.js';
import type { EventSourceInput, KubeObject, MatchDiagnostic } from './types.js';

/** EventCaseInput is one validation case: the EventSource and the two resource sets (either may be absent). */
export interface EventCaseInput {
  eventSource: EventSourceInput;
  matching?: readonly KubeObject[];
  nonMatching?: readonly KubeObject[];
}

/** EventCheck is one verdict: a resource (or the aggregatedSelection) with what was expected and what happened. */
export interface EventCheck {
  /** subject names the resource ("Service default/web") or "aggregatedSelection". */
  subject: string;
  /** set is "matching" or "non-matching" for resources, "both" for aggregatedSelection. */
  set: 'matching' | 'non-matching' | 'both';
  expected: 'match' | 'no match' | 'exactly the matching set';
  got: 'match' | 'no match' | 'error' | string;
  ok: boolean;
  message: string;
}

/** validateEventCase checks every resource of the case and returns one check per resource (plus aggregatedSelection). */
export function validateEventCase(input: EventCaseInput, runtime: LuaRuntime): { checks: EventCheck[]; diagnostics: MatchDiagnostic[] } {
  const es = compileEventSource(input.eventSource, runtime);
  const checks: EventCheck[] = [];
  const diagnostics: MatchDiagnostic[] = [...es.diagnostics];
  const agg = input.eventSource?.spec?.aggregatedSelection;
  const hasAggregated = typeof agg === 'string' && agg.trim() !== '';
  const infos = es.selectors;
  const one = (obj: KubeObject, set: 'matching' | 'non-matching') => {
    const expectMatch = set === 'matching';
    const subject = describe(obj);
    const gvk = gvkOf(obj);
    const indexes = gvk ? es.selectorsFor(gvk) : [];
    // With an aggregatedSelection, a selector without a per-resource filter only feeds the aggregation, which
    // decides the set; like Sveltos' test, check resources one by one only against selectors that filter.
    if (hasAggregated && indexes.length > 0 && indexes.every((i) => !infos[i].perResourceFilter)) return;
    if (indexes.length === 0) {
      const message = `no resourceSelector watches ${obj.apiVersion ?? '?'}/${obj.kind ?? '?'}`;
      checks.push({ subject, set, expected: expectMatch ? 'match' : 'no match', got: 'no match', ok: !expectMatch, message });
      return;
    }
    let matched = false;
    let failed = false;
    const messages: string[] = [];
    for (const i of indexes) {
      const m = es.matchObject(obj, i);
      if (m.diagnostics.length > 0) {
        diagnostics.push(...m.diagnostics);
        if (m.diagnostics.some((d) => d.code !== 'cel-evaluate')) failed = true;
        messages.push(...m.diagnostics.map(diagnosticText));
      }
      if (m.message) messages.push(m.message);
      if (m.matched) {
        matched = true;
        break;
      }
    }
    const got = failed && !matched ? 'error' : matched ? 'match' : 'no match';
    const ok = got !== 'error' && matched === expectMatch;
    checks.push({ subject, set, expected: expectMatch ? 'match' : 'no match', got, ok, message: messages.join('; ') });
  };
  for (const obj of input.matching ?? []) one(obj, 'matching');
  for (const obj of input.nonMatching ?? []) one(obj, 'non-matching');

  if (hasAggregated) {
    const all = [...(input.matching ?? []), ...(input.nonMatching ?? [])];
    const r = runtime.aggregate(agg as string, all);
    if (!r.ok) {
      checks.push({ subject: 'aggregatedSelection', set: 'both', expected: 'exactly the matching set', got: 'error', ok: false, message: r.failure.message });
    } else {
      const want = new Set((input.matching ?? []).map(identity));
      const got = new Set(r.resources.map(identity));
      const missing = [...want].filter((k) => !got.has(k));
      const extra = [...got].filter((k) => !want.has(k));
      const ok = missing.length === 0 && extra.length === 0;
      const parts = [r.message, missing.length ? `missing ${missing.join(', ')}` : '', extra.length ? `unexpected ${extra.join(', ')}` : ''];
      checks.push({
        subject: 'aggregatedSelection',
        set: 'both',
        expected: 'exactly the matching set',
        got: `${r.resources.length} resource${r.resources.length === 1 ? '' : 's'}`,
        ok,
        message: parts.filter(Boolean).join('; '),
      });
    }
  }
  return { checks, diagnostics };
}

function gvkOf(obj: KubeObject): { group: string; version: string; kind: string } | undefined {
  if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') return undefined;
  const slash = obj.apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : obj.apiVersion.slice(0, slash);
  const version = slash < 0 ? obj.apiVersion : obj.apiVersion.slice(slash + 1);
  return { group, version, kind: obj.kind };
}

function describe(obj: KubeObject): string {
  const meta = (obj.metadata ?? {}) as { name?: string; namespace?: string };
  const where = meta.namespace ? `${meta.namespace}/${meta.name ?? '?'}` : (meta.name ?? '?');
  return `${typeof obj.kind === 'string' ? obj.kind : '?'} ${where}`;
}

function identity(obj: Record<string, unknown>): string {
  const meta = (obj.metadata ?? {}) as { name?: string; namespace?: string };
  return `${String(obj.apiVersion ?? '')}/${String(obj.kind ?? '')} ${meta.namespace ? meta.namespace + '/' : ''}${meta.name ?? ''}`;
}

function diagnosticText(d: MatchDiagnostic): string {
  return `${d.field}${d.line !== undefined ? ` line ${d.line}` : ''}${d.rule ? ` rule ${d.rule}` : ''}: ${d.message}`;
}
