// gateway-api.ts: a minimal Gateway API HTTPRoute CustomResourceDefinition for the httproute demo (the seed's template
// deploys gateway.networking.k8s.io/v1beta1 HTTPRoutes, so the managed cluster must serve that kind). Written for
// Ripple, not copied: the fields the HTTPRoute spec defines for parentRefs, hostnames and rules (matches, filters,
// backendRefs), with the upstream enums and limits that matter, served as v1 (stored) and v1beta1 — the two versions
// share one schema, so no conversion webhook is needed (as upstream). Gateways themselves are not needed by the demo.
import type { KubeObject } from '../kube/index.js';

type Schema = Record<string, unknown>;

const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
const int = (min: number, max: number): Schema => ({ type: 'integer', format: 'int32', minimum: min, maximum: max });
const obj = (properties: Record<string, Schema>, required?: string[]): Schema => ({ type: 'object', properties, ...(required ? { required } : {}) });
const list = (items: Schema, maxItems?: number): Schema => ({ type: 'array', items, ...(maxItems ? { maxItems } : {}) });

const NAME = str({ minLength: 1, maxLength: 253 });
const GROUP = str({ maxLength: 253, pattern: '^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$' });
const KIND = str({ minLength: 1, maxLength: 63, pattern: '^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$' });
const NAMESPACE = str({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' });
const PORT = int(1, 65535);

const parentRef = obj(
  { group: { ...GROUP, default: 'gateway.networking.k8s.io' }, kind: { ...KIND, default: 'Gateway' }, namespace: NAMESPACE, name: NAME, sectionName: str({ maxLength: 253 }), port: PORT },
  ['name'],
);

const headerMatch = obj({ type: str({ enum: ['Exact', 'RegularExpression'], default: 'Exact' }), name: str({ minLength: 1, maxLength: 256 }), value: str({ minLength: 1, maxLength: 4096 }) }, ['name', 'value']);

const match = obj({
  path: obj({ type: str({ enum: ['Exact', 'PathPrefix', 'RegularExpression'], default: 'PathPrefix' }), value: str({ maxLength: 1024, default: '/' }) }),
  headers: list(headerMatch, 16),
  queryParams: list(headerMatch, 16),
  method: str({ enum: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'] }),
});

// Filters have many shapes (header modifiers, redirects, rewrites, mirrors, extension refs); the demo uses none, so
// they are kept as declared objects with a required type and otherwise unvalidated.
const filter = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { type: str({ enum: ['RequestHeaderModifier', 'ResponseHeaderModifier', 'RequestMirror', 'RequestRedirect', 'URLRewrite', 'ExtensionRef'] }) }, required: ['type'] };

const backendRef = obj(
  { group: { ...GROUP, default: '' }, kind: { ...KIND, default: 'Service' }, name: NAME, namespace: NAMESPACE, port: PORT, weight: { ...int(0, 1000000), default: 1 }, filters: list(filter as Schema, 16) },
  ['name'],
);

const schema: Schema = {
  type: 'object',
  description: 'HTTPRoute provides a way to route HTTP requests (Gateway API).',
  properties: {
    apiVersion: str(),
    kind: str(),
    metadata: { type: 'object' },
    spec: obj({
      parentRefs: list(parentRef, 32),
      hostnames: list(str({ minLength: 1, maxLength: 253 }), 16),
      rules: {
        ...list(
          obj({
            name: str({ maxLength: 253 }),
            matches: list(match, 64),
            filters: list(filter as Schema, 16),
            backendRefs: list(backendRef, 16),
            timeouts: obj({ request: str(), backendRequest: str() }),
          }),
          16,
        ),
        default: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }] }],
      },
    }),
    status: obj({
      parents: list({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, 32),
    }),
  },
  required: ['spec'],
};

const version = (name: string, storage: boolean) => ({
  name,
  served: true,
  storage,
  schema: { openAPIV3Schema: schema },
  subresources: { status: {} },
  additionalPrinterColumns: [
    { name: 'Hostnames', type: 'string', jsonPath: '.spec.hostnames' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
});

/** HTTPROUTE_CRD is the HTTPRoute CRD the httproute demo installs into its managed cluster. */
export const HTTPROUTE_CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: 'httproutes.gateway.networking.k8s.io',
    annotations: {
      // k8s.io groups need an API approval; the real Gateway API CRDs carry theirs. This stand-in says what it is.
      'api-approved.kubernetes.io': 'unapproved, a minimal stand-in for the Gateway API HTTPRoute CRD installed by the ripple httproute demo',
    },
  },
  spec: {
    group: 'gateway.networking.k8s.io',
    names: { plural: 'httproutes', singular: 'httproute', kind: 'HTTPRoute', listKind: 'HTTPRouteList', categories: ['gateway-api'] },
    scope: 'Namespaced',
    versions: [version('v1', true), version('v1beta1', false)],
  },
};
