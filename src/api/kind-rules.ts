// Per-kind semantic checks beyond the schema: selector strings that must parse, v1alpha1 fields that conflict with
// their v1beta1 replacements, and warnings for things that are legal but surprising. One entry per kind (a table,
// not an if-chain); every entry returns issues and warnings, never throws.
import { childPath, indexPath, isPlainObject, quoteValue, type Issue } from './issues.js';
import type { KindName } from './kinds.js';
import { parseLabelSelector, validateLabelSelector } from './label-selector.js';

/** KindCheck is what a per-kind rule found. */
export interface KindCheck {
  issues: Issue[];
  warnings: string[];
  /** Old shapes that normalize() will convert (informational; normalize reports what it actually did). */
  notes?: string[];
}

/** KindRule checks one object of a kind in a given served version. */
export type KindRule = (obj: Record<string, unknown>, version: string) => KindCheck;

/** EVENT_SOURCE_FLAT_FIELDS are the v1alpha1 flat EventSource spec fields (one selector inline in spec). */
export const EVENT_SOURCE_FLAT_FIELDS = ['group', 'version', 'kind', 'labelFilters', 'labelsFilters', 'namespace', 'script'] as const;

const present = (o: Record<string, unknown>, k: string) => o[k] !== undefined && o[k] !== null;
const specOf = (obj: Record<string, unknown>) => (isPlainObject(obj.spec) ? obj.spec : undefined);

function checkEventSource(obj: Record<string, unknown>): KindCheck {
  const issues: Issue[] = [];
  const warnings: string[] = [];
  const notes: string[] = [];
  const spec = specOf(obj);
  if (!spec) {
    warnings.push('spec is empty: this EventSource selects nothing');
    return { issues, warnings };
  }
  const flat = EVENT_SOURCE_FLAT_FIELDS.filter((f) => present(spec, f));
  const selectors = Array.isArray(spec.resourceSelectors) ? spec.resourceSelectors : [];
  if (flat.length > 0) {
    notes.push(`${flat.map((f) => `spec.${f}`).join(', ')}: v1alpha1 flat EventSource form, converted into spec.resourceSelectors[0]`);
    if (selectors.length > 0) {
      issues.push({
        path: 'spec.resourceSelectors',
        code: 'conflict',
        message: `cannot be combined with the v1alpha1 flat fields (${flat.map((f) => `spec.${f}`).join(', ')}): use one form`,
      });
    }
    if (!present(spec, 'kind')) issues.push({ path: 'spec.kind', code: 'required', message: 'Required value: the v1alpha1 flat form needs spec.kind' });
    if (!present(spec, 'version')) issues.push({ path: 'spec.version', code: 'required', message: 'Required value: the v1alpha1 flat form needs spec.version' });
    if (present(spec, 'labelFilters') && present(spec, 'labelsFilters')) {
      issues.push({ path: 'spec.labelsFilters', code: 'conflict', message: 'spec.labelFilters and spec.labelsFilters (old spelling) cannot both be set' });
    }
  }
  selectors.forEach((sel, i) => {
    if (!isPlainObject(sel)) return;
    const p = indexPath('spec.resourceSelectors', i);
    if (present(sel, 'script')) {
      if (present(sel, 'evaluate')) {
        issues.push({ path: childPath(p, 'script'), code: 'conflict', message: 'script (v1alpha1) and evaluate cannot both be set: script was renamed evaluate' });
      } else {
        notes.push(`${p}.script: renamed evaluate in 2023-12, converted`);
      }
    }
    if (isPlainObject(sel.selector)) issues.push(...validateLabelSelector(sel.selector, childPath(p, 'selector')));
  });
  if (flat.length === 0 && selectors.length === 0 && !(Array.isArray(spec.messagingMatchCriteria) && spec.messagingMatchCriteria.length > 0)) {
    warnings.push('no resourceSelectors and no messagingMatchCriteria: this EventSource selects nothing');
  }
  return { issues, warnings, notes };
}

// A v1alpha1 selector field: a selector string or a LabelSelector object.
function checkSelectorField(spec: Record<string, unknown>, field: string, path: string): KindCheck {
  const issues: Issue[] = [];
  const warnings: string[] = [];
  const notes: string[] = [];
  const v = spec[field];
  if (v === undefined || v === null) return { issues, warnings };
  if (typeof v === 'string') {
    const r = parseLabelSelector(v);
    if (!r.ok) issues.push({ path, code: 'invalidSelector', message: r.error });
    else notes.push(`${path}: v1alpha1 string selector ${quoteValue(v)}, converted to ${JSON.stringify(r.selector)}`);
  } else if (isPlainObject(v)) {
    issues.push(...validateLabelSelector(v, path));
  } else {
    issues.push({ path, code: 'type', message: `Invalid value: ${quoteValue(v)}: must be a label selector string (e.g. "env=fv") or matchLabels/matchExpressions` });
  }
  return { issues, warnings, notes };
}

function isEmptySelector(v: unknown): boolean {
  if (typeof v === 'string') {
    const r = parseLabelSelector(v);
    return r.ok && !r.selector.matchLabels && !r.selector.matchExpressions;
  }
  if (!isPlainObject(v)) return false;
  const ml = isPlainObject(v.matchLabels) ? Object.keys(v.matchLabels).length : 0;
  const me = Array.isArray(v.matchExpressions) ? v.matchExpressions.length : 0;
  return ml === 0 && me === 0;
}

function checkTrigger(obj: Record<string, unknown>, version: string, kind: 'EventTrigger' | 'EventBasedAddOn'): KindCheck {
  const issues: Issue[] = [];
  const warnings: string[] = [];
  const notes: string[] = [];
  const spec = specOf(obj);
  if (kind === 'EventBasedAddOn') notes.push('EventBasedAddOn (renamed EventTrigger in 2023-12), converted to EventTrigger');
  if (!spec) return { issues, warnings, notes };
  const merge = (c: KindCheck) => {
    issues.push(...c.issues);
    warnings.push(...c.warnings);
    notes.push(...(c.notes ?? []));
  };
  let sourceField = 'sourceClusterSelector';
  if (kind === 'EventBasedAddOn') {
    if (present(spec, 'clusterSelector') && present(spec, 'sourceClusterSelector')) {
      issues.push({ path: 'spec.clusterSelector', code: 'conflict', message: 'clusterSelector (old name) and sourceClusterSelector cannot both be set' });
    } else if (present(spec, 'clusterSelector')) {
      sourceField = 'clusterSelector';
      notes.push('spec.clusterSelector: the first EventBasedAddOn name of spec.sourceClusterSelector, renamed');
    } else if (!present(spec, 'sourceClusterSelector')) {
      issues.push({ path: 'spec.sourceClusterSelector', code: 'required', message: 'Required value: set sourceClusterSelector (or the old clusterSelector)' });
    }
  }
  const legacy = version === 'v1alpha1';
  for (const field of legacy ? [sourceField, 'destinationClusterSelector'] : []) merge(checkSelectorField(spec, field, `spec.${field}`));
  if (!legacy) {
    for (const field of ['sourceClusterSelector', 'destinationClusterSelector']) {
      const v = spec[field];
      if (typeof v !== 'string') continue;
      const r = parseLabelSelector(v);
      const suggestion = r.ok ? ` (${quoteValue(v)} is ${JSON.stringify(r.selector)})` : '';
      warnings.push(
        `spec.${field} is a string: string selectors are the v1alpha1 form; use apiVersion lib.projectsveltos.io/v1alpha1 or write matchLabels/matchExpressions${suggestion}`,
      );
    }
    // Non-objects were already reported by the schema check (type).
    for (const field of ['sourceClusterSelector', 'destinationClusterSelector']) {
      if (isPlainObject(spec[field])) issues.push(...validateLabelSelector(spec[field], `spec.${field}`));
    }
  }
  if (present(spec, sourceField) && isEmptySelector(spec[sourceField])) {
    warnings.push(`spec.${sourceField} is empty: Sveltos (and Ripple) match no cluster with an empty source selector`);
  }
  if (present(spec, 'destinationCluster') && present(spec, 'destinationClusterSelector') && !isEmptySelector(spec.destinationClusterSelector)) {
    warnings.push('destinationCluster and destinationClusterSelector are both set: the generated ClusterProfile gets both (Sveltos behaviour)');
  }
  return { issues, warnings, notes };
}

function checkClusterSelector(obj: Record<string, unknown>): KindCheck {
  const spec = specOf(obj);
  const sel = spec?.clusterSelector;
  return { issues: isPlainObject(sel) ? validateLabelSelector(sel, 'spec.clusterSelector') : [], warnings: [] };
}

function checkSveltosCluster(obj: Record<string, unknown>): KindCheck {
  const issues: Issue[] = [];
  const spec = specOf(obj);
  for (const checks of ['readinessChecks', 'livenessChecks']) {
    const list = spec && Array.isArray(spec[checks]) ? (spec[checks] as unknown[]) : [];
    list.forEach((c, i) => {
      if (!isPlainObject(c) || !Array.isArray(c.resourceSelectors)) return;
      c.resourceSelectors.forEach((sel, j) => {
        if (isPlainObject(sel) && isPlainObject(sel.selector)) {
          issues.push(...validateLabelSelector(sel.selector, `spec.${checks}[${i}].resourceSelectors[${j}].selector`));
        }
      });
    });
  }
  return { issues, warnings: [] };
}

const none: KindRule = () => ({ issues: [], warnings: [] });

/** KIND_RULES holds the semantic checks of every served kind. */
export const KIND_RULES: Readonly<Record<KindName, KindRule>> = {
  EventSource: (o) => checkEventSource(o),
  EventReport: none,
  EventTrigger: (o, v) => checkTrigger(o, v, 'EventTrigger'),
  EventBasedAddOn: (o, v) => checkTrigger(o, v, 'EventBasedAddOn'),
  ClusterProfile: checkClusterSelector,
  Profile: checkClusterSelector,
  ClusterSummary: none,
  ClusterReport: none,
  SveltosCluster: checkSveltosCluster,
  ClusterSet: checkClusterSelector,
  Set: checkClusterSelector,
  ResourceSummary: none,
  ConfigurationGroup: none,
  ConfigurationBundle: none,
  RoleRequest: none,
};
