// eventsource: compile an EventSource once, then match objects against it — per object (what the agent calls on
// every informer event) or over whole object sets (the full selection with concatenation and aggregatedSelection).
//
// Per selector (Go: sveltos-agent pkg/evaluation/eventsource_evaluation.go fetchResourcesMatchingResourceSelector):
// GVK, namespace and name must agree; objects being deleted are skipped; labelFilters and selector must hold; then
// the per-resource filter: any evaluateCEL rule true → match; else evaluateCEL set and no Lua → no match; else the
// Lua `evaluate` (none → match). All selectors' matches are concatenated in selector order (duplicates kept), and a
// non-empty aggregatedSelection replaces the list with what its Lua returns.
//
// Unlike Sveltos, a failure never aborts anything: it becomes a diagnostic, the object does not match, and the
// selection is marked incomplete so that a caller can keep its previous report (as Sveltos does by not updating it).
import type { CompiledLabelSelector, ResourceSelector } from '../api/index.js';
import type { LuaFailure, LuaRuntime, LuaScript } from '../lua/index.js';
import { compileCelRules, evaluateCelRules, type CompiledCelRule } from './cel.js';
import { compileSelectorLabels } from './labels.js';
import type { EventSourceInput, GroupVersionKind, KubeObject, MatchDiagnostic, MatchDiagnosticCode, ObjectRef } from './types.js';

/** MatchOptions tunes how scripts run. */
export interface MatchOptions {
  /** helpers exposes the libsveltos Lua globals and modules to scripts (default true). */
  helpers?: boolean;
}

/** ObjectMatch is the outcome of one selector on one object. */
export interface ObjectMatch {
  matched: boolean;
  /** message is the Lua script's non-empty message, if any. */
  message?: string;
  diagnostics: MatchDiagnostic[];
}

/** SelectionResult is the full EventSource selection over a set of objects. */
export interface SelectionResult {
  /** resources is the matching set: selector matches concatenated in order, or aggregatedSelection's result. */
  resources: KubeObject[];
  /** complete is false when an evaluation failed, so the set may miss objects that would match. */
  complete: boolean;
  diagnostics: MatchDiagnostic[];
  /** message is aggregatedSelection's message, if any. */
  message?: string;
}

/** ObjectSource gives the objects of one GVK: a map keyed by gvkKey, or a function. */
export type ObjectSource = ReadonlyMap<string, readonly KubeObject[]> | ((gvk: GroupVersionKind) => readonly KubeObject[] | undefined);

/** SelectorInfo describes one compiled selector. */
export interface SelectorInfo {
  index: number;
  gvk: GroupVersionKind;
  namespace?: string;
  name?: string;
  /** perResourceFilter is true when the selector has a Lua evaluate or evaluateCEL rules. */
  perResourceFilter: boolean;
}

/** gvkKey is the map key of a GVK: "group/version/Kind" ("/v1/Service" for the core group). */
export function gvkKey(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}/${gvk.kind}`;
}

/** apiVersionOf is the apiVersion string of a group and version. */
export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

interface CompiledSelector extends SelectorInfo {
  field: string;
  apiVersion: string;
  labels: CompiledLabelSelector;
  cel: CompiledCelRule[];
  hasCel: boolean;
  lua?: LuaScript;
  /** broken is set when the selector can never match (bad label filter, bad script...). */
  broken?: MatchDiagnostic;
}

/** compileEventSource compiles every selector, script and rule of es; problems become diagnostics, never throws. */
export function compileEventSource(es: EventSourceInput, runtime: LuaRuntime, opts: MatchOptions = {}): CompiledEventSource {
  return new CompiledEventSource(es, runtime, opts);
}

/** CompiledEventSource is an EventSource ready to match objects; immutable, reusable across objects and cycles. */
export class CompiledEventSource {
  /** name is metadata.name (used in diagnostics). */
  readonly name: string;
  /** diagnostics are the problems found while compiling (syntax errors, invalid filters, rules that do not compile). */
  readonly diagnostics: readonly MatchDiagnostic[];
  readonly collectResources: boolean;
  /** includeDeletingResources: objects with a deletionTimestamp still match (default: skipped, as Sveltos). */
  readonly includeDeletingResources: boolean;
  private readonly compiled: CompiledSelector[];
  private readonly aggregated?: LuaScript;
  private readonly aggregatedBroken?: MatchDiagnostic;
  private readonly byGvk = new Map<string, number[]>();

  /** constructor is internal: use compileEventSource. */
  constructor(
    es: EventSourceInput,
    private readonly runtime: LuaRuntime,
    private readonly opts: MatchOptions,
  ) {
    this.name = es?.metadata?.name ?? '';
    const spec = es?.spec ?? {};
    this.collectResources = spec.collectResources === true;
    this.includeDeletingResources = spec.includeDeletingResources === true;
    const diags: MatchDiagnostic[] = [];
    const selectors = Array.isArray(spec.resourceSelectors) ? spec.resourceSelectors : [];
    this.compiled = selectors.map((sel, index) => this.compileSelector(sel, index, diags));
    for (const s of this.compiled) {
      const key = gvkKey(s.gvk);
      const list = this.byGvk.get(key) ?? [];
      list.push(s.index);
      this.byGvk.set(key, list);
    }
    const agg = typeof spec.aggregatedSelection === 'string' ? spec.aggregatedSelection : '';
    if (agg.trim() !== '') {
      const c = runtime.compile(agg);
      if (c.ok) this.aggregated = c.script;
      else {
        this.aggregatedBroken = this.luaDiagnostic(c.failure, undefined, 'spec.aggregatedSelection', undefined, true);
        diags.push(this.aggregatedBroken);
      }
    }
    this.diagnostics = diags;
  }

  private compileSelector(sel: ResourceSelector, index: number, diags: MatchDiagnostic[]): CompiledSelector {
    const field = `spec.resourceSelectors[${index}]`;
    const gvk = { group: str(sel?.group), version: str(sel?.version), kind: str(sel?.kind) };
    const s: CompiledSelector = {
      index,
      field,
      gvk,
      apiVersion: apiVersionOf(gvk.group, gvk.version),
      labels: NO_LABELS,
      cel: [],
      hasCel: false,
      perResourceFilter: false,
    };
    if (sel?.namespace) s.namespace = sel.namespace;
    if (sel?.name) s.name = sel.name;
    const broken = (code: MatchDiagnosticCode, f: string, message: string) => {
      const d: MatchDiagnostic = { code, eventSource: this.name, selectorIndex: index, field: f, message };
      diags.push(d);
      s.broken ??= d;
    };
    if (!gvk.kind) broken('selector', `${field}.kind`, 'kind is required');
    if (!gvk.version) broken('selector', `${field}.version`, 'version is required');
    const labels = compileSelectorLabels(sel?.labelFilters, sel?.selector, field);
    for (const p of labels.problems) broken(p.code, p.field, p.message);
    s.labels = labels.labels;
    if (Array.isArray(sel?.evaluateCEL) && sel.evaluateCEL.length > 0) {
      s.hasCel = true;
      s.cel = compileCelRules(sel.evaluateCEL);
      s.cel.forEach((r, i) => {
        if ('error' in r) {
          // A rule that does not compile is skipped (Go: EvaluateRules logs and continues); the others still count.
          diags.push({ code: 'cel-compile', eventSource: this.name, selectorIndex: index, field: `${field}.evaluateCEL[${i}]`, rule: r.name, message: r.error });
        }
      });
    }
    const script = typeof sel?.evaluate === 'string' ? sel.evaluate : '';
    if (script.trim() !== '') {
      const c = this.runtime.compile(script);
      if (c.ok) s.lua = c.script;
      else {
        const d = this.luaDiagnostic(c.failure, index, `${field}.evaluate`, undefined, true);
        diags.push(d);
        s.broken ??= d;
      }
    }
    return s;
  }

  /** selectors describes every selector in order. */
  get selectors(): readonly SelectorInfo[] {
    return this.compiled.map(({ index, gvk, namespace, name, lua, hasCel, broken }) => ({
      index,
      gvk,
      ...(namespace ? { namespace } : {}),
      ...(name ? { name } : {}),
      perResourceFilter: hasCel || lua !== undefined || broken?.code === 'lua-syntax',
    }));
  }

  /** gvks lists the distinct GVKs the selectors watch (what the agent needs informers for). */
  gvks(): GroupVersionKind[] {
    const seen = new Map<string, GroupVersionKind>();
    for (const s of this.compiled) seen.set(gvkKey(s.gvk), s.gvk);
    return [...seen.values()];
  }

  /** selectorsFor returns the indexes of the selectors that watch gvk, in order. */
  selectorsFor(gvk: GroupVersionKind): readonly number[] {
    return this.byGvk.get(gvkKey(gvk)) ?? [];
  }

  /** matchObject evaluates selector selectorIndex on obj (the object must be of the selector's GVK). */
  matchObject(obj: KubeObject, selectorIndex: number): ObjectMatch {
    const s = this.compiled[selectorIndex];
    if (!s) throw new RangeError(`EventSource ${this.name} has no resourceSelectors[${selectorIndex}]`);
    const meta = metadataOf(obj);
    if (typeof obj.kind === 'string' && obj.kind !== s.gvk.kind) return { matched: false, diagnostics: [] };
    if (typeof obj.apiVersion === 'string' && obj.apiVersion !== s.apiVersion) return { matched: false, diagnostics: [] };
    if (s.namespace && meta.namespace !== s.namespace) return { matched: false, diagnostics: [] };
    if (s.name && meta.name !== s.name) return { matched: false, diagnostics: [] };
    if (meta.deletionTimestamp && !this.includeDeletingResources) return { matched: false, diagnostics: [] };
    if (s.broken) return { matched: false, diagnostics: [{ ...s.broken, object: refOf(obj, s) }] };
    if (!s.labels.matches(meta.labels)) return { matched: false, diagnostics: [] };
    const diagnostics: MatchDiagnostic[] = [];
    if (s.hasCel) {
      const out = evaluateCelRules(s.cel, obj);
      for (const f of out.failures) {
        const i = s.cel.findIndex((r) => r.name === f.name);
        diagnostics.push({
          code: 'cel-evaluate',
          eventSource: this.name,
          selectorIndex: s.index,
          field: `${s.field}.evaluateCEL[${i}]`,
          rule: f.name,
          object: refOf(obj, s),
          message: f.message,
        });
      }
      if (out.matched) return { matched: true, diagnostics };
      if (!s.lua) return { matched: false, diagnostics };
    }
    if (!s.lua) return { matched: true, diagnostics };
    const r = this.runtime.evaluate(s.lua, obj, { helpers: this.opts.helpers !== false });
    if (!r.ok) {
      diagnostics.push(this.luaDiagnostic(r.failure, s.index, `${s.field}.evaluate`, refOf(obj, s), false));
      return { matched: false, diagnostics };
    }
    return r.message ? { matched: r.matching, message: r.message, diagnostics } : { matched: r.matching, diagnostics };
  }

  /** select runs the full selection over the objects source gives for each selector's GVK. */
  select(source: ObjectSource): SelectionResult {
    const resources: KubeObject[] = [];
    const diagnostics: MatchDiagnostic[] = [];
    let complete = this.diagnostics.length === 0 || this.diagnostics.every((d) => d.code === 'cel-compile');
    const lookup = typeof source === 'function' ? source : (gvk: GroupVersionKind) => source.get(gvkKey(gvk));
    for (const s of this.compiled) {
      const objects = lookup(s.gvk) ?? [];
      for (const obj of objects) {
        const m = this.matchObject(obj, s.index);
        if (m.diagnostics.length > 0) {
          diagnostics.push(...m.diagnostics);
          if (m.diagnostics.some((d) => d.code !== 'cel-evaluate')) complete = false;
        }
        if (m.matched) resources.push(obj);
      }
    }
    if (this.aggregatedBroken) {
      return { resources: [], complete: false, diagnostics: [...diagnostics, this.aggregatedBroken] };
    }
    if (!this.aggregated) return { resources, complete, diagnostics };
    const r = this.runtime.aggregate(this.aggregated, resources, { helpers: this.opts.helpers !== false });
    if (!r.ok) {
      diagnostics.push(this.luaDiagnostic(r.failure, undefined, 'spec.aggregatedSelection', undefined, false));
      return { resources: [], complete: false, diagnostics };
    }
    return r.message ? { resources: r.resources, complete, diagnostics, message: r.message } : { resources: r.resources, complete, diagnostics };
  }

  private luaDiagnostic(f: LuaFailure, selectorIndex: number | undefined, field: string, object: ObjectRef | undefined, compile: boolean): MatchDiagnostic {
    const code: MatchDiagnosticCode =
      f.stage === 'timeout' ? 'lua-timeout' : f.stage === 'memory' ? 'lua-memory' : f.stage === 'result' ? 'lua-result' : compile ? 'lua-syntax' : 'lua-runtime';
    const d: MatchDiagnostic = { code, eventSource: this.name, field, message: f.message };
    if (selectorIndex !== undefined) d.selectorIndex = selectorIndex;
    if (object) d.object = object;
    if (f.line !== undefined) d.line = f.line;
    return d;
  }
}

// NO_LABELS stands in until a selector's labels are compiled (a selector that fails earlier never matches anyway).
const NO_LABELS = compileSelectorLabels(undefined, undefined, '').labels;

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

interface Meta {
  name?: string;
  namespace?: string;
  labels?: Record<string, unknown>;
  deletionTimestamp?: unknown;
}

function metadataOf(obj: KubeObject): Meta {
  const m = obj?.metadata;
  return m !== null && typeof m === 'object' ? (m as Meta) : {};
}

function refOf(obj: KubeObject, s: CompiledSelector): ObjectRef {
  const meta = metadataOf(obj);
  const ref: ObjectRef = {
    apiVersion: typeof obj.apiVersion === 'string' ? obj.apiVersion : s.apiVersion,
    kind: typeof obj.kind === 'string' ? obj.kind : s.gvk.kind,
  };
  if (typeof meta.namespace === 'string' && meta.namespace) ref.namespace = meta.namespace;
  if (typeof meta.name === 'string') ref.name = meta.name;
  return ref;
}
