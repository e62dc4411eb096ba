// CRD generation: turns the descriptor table into apiextensions.k8s.io/v1 CustomResourceDefinitions (structural
// schemas, status subresources, printer columns, categories, conversion None).
import { stringify } from 'yaml';
import { KINDS, type KindDescriptor, type PrinterColumn } from './kinds.js';
import type { JsonSchema } from './schema-dsl.js';

/** CustomResourceDefinitionVersion is one entry of a CRD's spec.versions. */
export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: { openAPIV3Schema: JsonSchema };
  subresources?: { status?: Record<string, never> };
  additionalPrinterColumns?: PrinterColumn[];
}

/** CustomResourceDefinition is the apiextensions.k8s.io/v1 object Ripple installs for each kind. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    group: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames?: string[]; categories?: string[] };
    scope: 'Namespaced' | 'Cluster';
    conversion: { strategy: 'None' };
    versions: CustomResourceDefinitionVersion[];
  };
}

// Empty `properties: {}` / `required: []` are legal but noise; drop them so the CRDs read like controller-gen's.
function tidy(s: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'properties') {
      const props = v as Record<string, JsonSchema>;
      if (Object.keys(props).length === 0) continue;
      out.properties = Object.fromEntries(Object.entries(props).map(([pk, pv]) => [pk, tidy(pv)]));
    } else if (k === 'required' && Array.isArray(v) && v.length === 0) {
      continue;
    } else if ((k === 'items' || k === 'additionalProperties' || k === 'not') && v && typeof v === 'object') {
      out[k] = tidy(v as JsonSchema);
    } else if ((k === 'anyOf' || k === 'allOf' || k === 'oneOf') && Array.isArray(v)) {
      out[k] = (v as JsonSchema[]).map(tidy);
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** crdFor builds the CustomResourceDefinition of one kind. */
export function crdFor(d: KindDescriptor): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${d.plural}.${d.group}`, labels: { 'app.kubernetes.io/part-of': 'ripple' } },
    spec: {
      group: d.group,
      names: {
        kind: d.kind,
        listKind: d.listKind,
        plural: d.plural,
        singular: d.singular,
        ...(d.shortNames.length ? { shortNames: [...d.shortNames] } : {}),
        ...(d.categories.length ? { categories: [...d.categories] } : {}),
      },
      scope: d.scope,
      conversion: { strategy: 'None' },
      versions: d.versions.map((v) => ({
        name: v.name,
        served: v.served,
        storage: v.storage,
        ...(v.deprecated ? { deprecated: true } : {}),
        ...(v.deprecationWarning ? { deprecationWarning: v.deprecationWarning } : {}),
        schema: { openAPIV3Schema: tidy(v.schema) },
        ...(d.status ? { subresources: { status: {} } } : {}),
        ...(v.printerColumns.length ? { additionalPrinterColumns: v.printerColumns.map((c) => ({ ...c })) } : {}),
      })),
    },
  };
}

/** generateCrds builds the CRDs of every kind Ripple serves (or of the given descriptors), in table order. */
export function generateCrds(kinds: readonly KindDescriptor[] = KINDS): CustomResourceDefinition[] {
  return kinds.map(crdFor);
}

/** crdsToYaml renders CRDs as one multi-document YAML stream (`---` separated), ready for `kubectl apply -f -`. */
export function crdsToYaml(crds: readonly CustomResourceDefinition[]): string {
  return crds.map((c) => '---\n' + stringify(c, { lineWidth: 0 })).join('');
}
