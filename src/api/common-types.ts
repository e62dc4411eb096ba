// Small shared Sveltos/Kubernetes types: object references, label selectors, label filters, resource selectors.
// Shapes follow projectsveltos/libsveltos api/v1beta1/common_types.go and k8s.io/api core/v1 + meta/v1.
import type { LabelSelector } from './label-selector.js';
import {
  Type,
  list,
  obj,
  opt,
  str,
  strEnum,
  strList,
  strMap,
  toJsonSchema,
  type Opts,
  type Static,
} from './schema-dsl.js';

/** objectReferenceSchema is corev1.ObjectReference (atomic map: replaced as a whole by server-side apply). */
export const objectReferenceSchema = (o: Opts = {}) =>
  obj(
    {
      apiVersion: opt(str({ description: 'API version of the referent.' })),
      fieldPath: opt(str()),
      kind: opt(str({ description: 'Kind of the referent.' })),
      name: opt(str({ description: 'Name of the referent.' })),
      namespace: opt(str({ description: 'Namespace of the referent.' })),
      resourceVersion: opt(str()),
      uid: opt(str()),
    },
    { 'x-kubernetes-map-type': 'atomic', ...o },
  );
/** ObjectReference is corev1.ObjectReference (Sveltos uses it for clusters, matched resources, template refs). */
export type ObjectReference = Static<ReturnType<typeof objectReferenceSchema>>;

/** secretRefSchema is corev1.SecretReference / a namespaced name (atomic). */
export const secretRefSchema = (o: Opts = {}) =>
  obj({ name: opt(str()), namespace: opt(str()) }, { 'x-kubernetes-map-type': 'atomic', ...o });

/** labelSelectorSchema is metav1.LabelSelector exactly as controller-gen emits it (atomic map). */
export const labelSelectorSchema = (o: Opts = {}) =>
  Type.Unsafe<LabelSelector>({
    ...toJsonSchema(
      obj(
        {
          matchExpressions: opt(
            list(
              obj({
                key: str({ description: 'key is the label key that the selector applies to.' }),
                operator: str({ description: "operator is one of In, NotIn, Exists and DoesNotExist." }),
                values: opt(strList({ 'x-kubernetes-list-type': 'atomic' })),
              }),
              { 'x-kubernetes-list-type': 'atomic' },
            ),
          ),
          matchLabels: opt(strMap()),
        },
        { 'x-kubernetes-map-type': 'atomic' },
      ),
    ),
    ...o,
  });

/** LABEL_FILTER_OPERATIONS are the operations of a Sveltos LabelFilter. */
export const LABEL_FILTER_OPERATIONS = ['Equal', 'Different', 'Has', 'DoesNotHave'] as const;

/** labelFilterSchema is a Sveltos LabelFilter: ANDed label conditions on selected resources. */
export const labelFilterSchema = () =>
  obj({
    key: str({ description: 'Key is the label key.' }),
    operation: strEnum(LABEL_FILTER_OPERATIONS, { description: 'Operation is the comparison operation.' }),
    value: opt(str({ description: 'Value is the label value (unused by Has/DoesNotHave).' })),
  });
/** LabelFilter is one Sveltos label condition (`key`, `operation`, `value`). */
export type LabelFilter = Static<ReturnType<typeof labelFilterSchema>>;

/** celRuleSchema is a named CEL expression returning bool (EventSource evaluateCEL, health checks). */
export const celRuleSchema = () => obj({ name: str(), rule: str() });

/** ResourceSelectorVariant picks the libsveltos shape: current, or current + the v1alpha1 `script` field. */
export type ResourceSelectorVariant = 'current' | 'legacy';

/**
 * resourceSelectorSchema is a Sveltos ResourceSelector. The `legacy` variant also declares v1alpha1's `script`
 * (renamed `evaluate` in 2023-12) so objects written with it are not pruned by the API server.
 */
export const resourceSelectorSchema = (variant: ResourceSelectorVariant = 'current') =>
  obj({
    evaluate: opt(str({ description: 'Evaluate is a Lua script defining function evaluate(obj) returning {matching=bool}.' })),
    evaluateCEL: opt(list(celRuleSchema(), { description: 'EvaluateCEL rules; the resource matches if any rule is true.' })),
    group: str({ description: 'Group of the resource deployed in the Cluster.' }),
    kind: str({ minLength: 1, description: 'Kind of the resource deployed in the Cluster.' }),
    labelFilters: opt(list(labelFilterSchema(), { description: 'LabelFilters allows to select resources by labels (ANDed).' })),
    name: opt(str({ description: 'Name of the resource deployed in the Cluster.' })),
    namespace: opt(str({ description: 'Namespace of the resource; empty means all namespaces.' })),
    ...(variant === 'legacy'
      ? { script: opt(str({ description: 'Deprecated (v1alpha1): the former name of evaluate; Ripple converts it.' })) }
      : {}),
    selector: opt(labelSelectorSchema({ description: 'Selector is a label selector ANDed with labelFilters.' })),
    version: str({ description: 'Version of the resource deployed in the Cluster.' }),
  });
/**
 * ResourceSelector selects resources of one GVK in a cluster (labels, name, namespace, Lua/CEL filters): the current
 * shape. (Static of the builder would make the legacy-only `script` a required key, because the builder's return
 * type merges both variants.)
 */
export type ResourceSelector = Omit<Static<ReturnType<typeof resourceSelectorSchema>>, 'script'>;

/** ObjectMeta is the part of metav1.ObjectMeta Ripple reads; the API server owns the rest. */
export interface ObjectMeta {
  name: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
}

/** OwnerReference is metav1.OwnerReference. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** KubeObject is the envelope every typed Sveltos object shares: apiVersion, kind, metadata. */
export interface KubeObject<A extends string = string, K extends string = string> {
  apiVersion: A;
  kind: K;
  metadata: ObjectMeta;
}
