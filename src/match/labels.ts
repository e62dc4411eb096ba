// labels: the label part of one resource selector — labelFilters ANDed with selector — compiled once with src/api's
// label semantics (compileLabelSelector is Ripple's one implementation of Kubernetes label matching). Entries that
// Kubernetes would reject become problems instead of silently matching nothing.
// Go: sveltos-agent pkg/evaluation (labelFilters → labels.Parse, selector → LabelSelectorAsSelector, ANDed).
import {
  compileLabelSelector,
  labelFiltersAsSelector,
  validateLabelFilters,
  validateLabelSelector,
  type CompiledLabelSelector,
  type LabelFilter,
  type LabelSelector,
  type LabelSelectorRequirement,
} from '../api/index.js';

/** LabelProblem is a filter or selector entry that Kubernetes would reject. */
export interface LabelProblem {
  code: 'label-filter' | 'label-selector';
  field: string;
  message: string;
}

/** SelectorLabels is the compiled label condition of a selector, or the problems that make it unusable. */
export interface SelectorLabels {
  /** labels matches an object's metadata.labels (everything when the selector sets no label condition). */
  labels: CompiledLabelSelector;
  problems: LabelProblem[];
}

/** compileSelectorLabels ANDs labelFilters and selector into one compiled selector; base is the selector's field path. */
export function compileSelectorLabels(filters: readonly LabelFilter[] | undefined, selector: LabelSelector | undefined, base: string): SelectorLabels {
  const problems: LabelProblem[] = [];
  for (const i of validateLabelFilters(filters, `${base}.labelFilters`)) problems.push({ code: 'label-filter', field: i.path, message: i.message });
  const selectorPath = `${base}.selector`;
  if (selector !== undefined && (selector === null || typeof selector !== 'object' || Array.isArray(selector))) {
    problems.push({ code: 'label-selector', field: selectorPath, message: 'must be a label selector object (matchLabels, matchExpressions)' });
  } else if (selector !== undefined) {
    // validateLabelSelector leaves shape errors (a missing key or operator) to schema validation; report them here.
    (Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []).forEach((e: Partial<LabelSelectorRequirement> | null, i) => {
      const field = `${selectorPath}.matchExpressions[${i}]`;
      if (e === null || typeof e !== 'object') problems.push({ code: 'label-selector', field, message: 'must be an object (key, operator, values)' });
      else if (typeof e.key !== 'string') problems.push({ code: 'label-selector', field: `${field}.key`, message: 'Required value' });
      else if (typeof e.operator !== 'string') problems.push({ code: 'label-selector', field: `${field}.operator`, message: 'Required value' });
    });
    for (const i of validateLabelSelector(selector, selectorPath)) problems.push({ code: 'label-selector', field: i.path, message: i.message });
  }
  if (problems.length > 0) return { labels: compileLabelSelector(null), problems };
  const fromFilters = labelFiltersAsSelector(filters);
  const combined: LabelSelector = {
    ...(selector?.matchLabels ? { matchLabels: selector.matchLabels } : {}),
    matchExpressions: [...(fromFilters.matchExpressions ?? []), ...(selector?.matchExpressions ?? [])],
  };
  // No filters and no (or an empty) selector: an empty selector, which selects everything.
  return { labels: compileLabelSelector(combined), problems };
}
