// defineBuiltin fills a built-in kind's descriptor from the few facts that differ between kinds.
import { builtinSchema } from '../schema/index.js';
import { defaultColumns } from '../printers.js';
import { ALL_VERBS, gvString, withApiVersion, type KindHooks, type PrinterColumn, type ResourceDescriptor, type ScaleSpec, type SubresourceAction } from '../resource.js';
import type { NameRule } from '../validation.js';
import { applyGoDefaults } from './defaults.js';

/** BuiltinSpec is what a built-in kind declares; everything else takes kube's defaults. */
export interface BuiltinSpec {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs?: string[];
  status?: boolean;
  scale?: ScaleSpec;
  /** actions are the kind's other subresources (eviction, binding, approval). */
  actions?: SubresourceAction[];
  nameRule?: NameRule;
  storage?: string;
  tracksGeneration?: boolean;
  allowCreateOnUpdate?: boolean;
  allowUnconditionalUpdate?: boolean;
  returnDeletedObject?: boolean;
  columns?: PrinterColumn[];
  fieldNames?: string[];
  hooks?: KindHooks;
  /** goDefaults runs kube's generated defaulters (kinds/defaults.ts) before the kind's own default hook. */
  goDefaults?: boolean;
  /** Conversion between the stored shape and this served version (events.k8s.io Events). */
  fromStorage?: ResourceDescriptor['fromStorage'];
  toStorage?: ResourceDescriptor['toStorage'];
}

/** defineBuiltin builds the descriptor of a built-in kind. */
export function defineBuiltin(s: BuiltinSpec): ResourceDescriptor {
  const apiVersion = gvString(s.group, s.version);
  return {
    group: s.group,
    versions: [s.version],
    storageVersion: s.version,
    kind: s.kind,
    listKind: `${s.kind}List`,
    plural: s.plural,
    singular: s.kind.toLowerCase(),
    shortNames: s.shortNames ?? [],
    categories: s.categories ?? [],
    namespaced: s.namespaced,
    verbs: s.verbs ?? ALL_VERBS,
    subresources: { status: s.status ?? false, scale: s.scale, ...(s.actions ? { actions: s.actions } : {}) },
    nameRule: s.nameRule ?? 'dns1123Subdomain',
    storage: s.storage ?? `${s.group}/${s.plural}`,
    builtin: true,
    tracksGeneration: s.tracksGeneration ?? false,
    allowCreateOnUpdate: s.allowCreateOnUpdate ?? false,
    allowUnconditionalUpdate: s.allowUnconditionalUpdate ?? true,
    returnDeletedObject: s.returnDeletedObject ?? false,
    schema: (version) => builtinSchema(s.group, version, s.kind),
    columns: () => s.columns ?? defaultColumns,
    fromStorage: s.fromStorage ?? ((obj) => withApiVersion(obj, apiVersion, s.kind)),
    toStorage: s.toStorage ?? ((obj) => withApiVersion(obj, apiVersion, s.kind)),
    plainConversion: s.fromStorage === undefined,
    fieldNames: s.fieldNames ?? [],
    hooks: s.goDefaults ? withGoDefaults(s, s.hooks ?? {}) : (s.hooks ?? {}),
  };
}

function withGoDefaults(s: BuiltinSpec, hooks: KindHooks): KindHooks {
  const own = hooks.default;
  return {
    ...hooks,
    default(obj) {
      applyGoDefaults(s.group, s.version, s.kind, obj);
      own?.(obj);
    },
  };
}
