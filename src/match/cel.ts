// cel: evaluateCEL rules — one variable `resource` bound to the whole object, rules OR-ed in order, a rule that fails
// to compile or evaluate (or does not return a bool) is reported and counts as "no match".
// Go: libsveltos lib/cel/evaluator.go EvaluateRules (cel-go, `resource` declared as DynType).
//
// Library: @marcbachmann/cel-js 8 (zero dependencies, Node ≥ 20.19). Integers are BigInt there, as int64 in cel-go,
// so objects are converted once per object (cached by identity) with integral numbers as BigInt: `replicas == 3`
// compares int to int exactly as it does on the dynamic client's int64 values in Sveltos.
import { Environment, type ParseResult } from '@marcbachmann/cel-js';
import type { ResourceSelector } from '../api/index.js';
import type { KubeObject } from './types.js';

/** CelRule is one evaluateCEL entry of a resource selector (name, rule). */
export type CelRule = NonNullable<ResourceSelector['evaluateCEL']>[number];

/** CompiledCelRule is a parsed rule, or the reason it does not compile. */
export type CompiledCelRule = { name: string; rule: string; program: ParseResult } | { name: string; rule: string; error: string };

/** CelOutcome is the result of the rules on one object: whether any rule matched, and the rules that failed. */
export interface CelOutcome {
  matched: boolean;
  failures: { name: string; message: string }[];
}

let env: Environment | undefined;
function celEnv(): Environment {
  env ??= new Environment({ homogeneousAggregateLiterals: false }).registerVariable('resource', 'dyn');
  return env;
}

/** compileCelRules parses every rule once; failures are kept with their message. */
export function compileCelRules(rules: readonly CelRule[]): CompiledCelRule[] {
  return rules.map((r) => {
    const name = typeof r?.name === 'string' ? r.name : '';
    const rule = typeof r?.rule === 'string' ? r.rule : '';
    if (rule.trim() === '') return { name, rule, error: 'rule is empty' };
    try {
      const program = celEnv().parse(rule);
      const checked = program.check() as { valid: boolean; error?: { message?: string } | string; type?: string };
      if (!checked.valid) {
        const e = checked.error;
        return { name, rule, error: typeof e === 'string' ? e : (e?.message ?? 'type check failed') };
      }
      if (checked.type !== undefined && checked.type !== 'bool' && checked.type !== 'dyn') {
        return { name, rule, error: `rule returns ${checked.type}, not bool` };
      }
      return { name, rule, program };
    } catch (err) {
      return { name, rule, error: firstLine(err) };
    }
  });
}

const converted = new WeakMap<object, unknown>();

/** celValue converts an object for CEL (integral numbers → BigInt), once per object identity. */
export function celValue(obj: KubeObject): unknown {
  let v = converted.get(obj);
  if (v === undefined) {
    v = toCel(obj);
    converted.set(obj, v);
  }
  return v;
}

function toCel(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) && Number.isSafeInteger(v) ? BigInt(v) : v;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(toCel);
  const out: Record<string, unknown> = {};
  for (const k in v as Record<string, unknown>) out[k] = toCel((v as Record<string, unknown>)[k]);
  return out;
}

/** evaluateCelRules runs the rules in order and stops at the first true; rules that did not compile are skipped
 * (Go: EvaluateRules). */
export function evaluateCelRules(rules: readonly CompiledCelRule[], obj: KubeObject): CelOutcome {
  const failures: CelOutcome['failures'] = [];
  const resource = celValue(obj);
  for (const r of rules) {
    if ('error' in r) continue; // reported once when the EventSource was compiled
    let out: unknown;
    try {
      out = r.program({ resource });
    } catch (err) {
      failures.push({ name: r.name, message: firstLine(err) });
      continue;
    }
    if (typeof out !== 'boolean') {
      failures.push({ name: r.name, message: `rule returned ${describe(out)}, not a bool` });
      continue;
    }
    if (out) return { matched: true, failures };
  }
  return { matched: false, failures };
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'bigint') return `int ${v}`;
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a map';
  return `${typeof v} ${String(v)}`;
}

function firstLine(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.split('\n')[0];
}
