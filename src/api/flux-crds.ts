// flux-crds.ts: the CustomResourceDefinitions of Flux's source-controller kinds Sveltos consumes — GitRepository
// (source.toolkit.fluxcd.io/v1), OCIRepository and Bucket (v1beta2) — written from Flux's documented API
// (fluxcd.io/flux/components/source/{gitrepositories,ocirepositories,buckets}), so a management cluster without
// Flux can hold sources whose status (`artifact`, `conditions`, `observedGeneration`) is written the way
// source-controller writes it. `ripple up` installs them into its embedded management cluster;
// `ripple manifests crds --flux` prints them (never apply them over a real Flux installation's own CRDs).
import type { CustomResourceDefinition } from './crd.js';
import type { JsonSchema } from './schema-dsl.js';

/** FLUX_SOURCE_GROUP is source-controller's API group. */
export const FLUX_SOURCE_GROUP = 'source.toolkit.fluxcd.io';

const str = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
const bool = (): JsonSchema => ({ type: 'boolean' });
const int64 = (): JsonSchema => ({ type: 'integer', format: 'int64' });
const obj = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({ type: 'object', properties, ...(required.length > 0 ? { required } : {}) });
const list = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
const localRef = (): JsonSchema => obj({ name: str({ description: 'Name of the referent.' }) }, ['name']);
const DURATION = '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$';
const interval = (): JsonSchema => str({ pattern: DURATION, description: 'Interval at which the source is checked for updates.' });
const timeout = (): JsonSchema => str({ pattern: '^([0-9]+(\\.[0-9]+)?(ms|s|m))+$', default: '60s' });

/** artifactSchema is Flux's meta.Artifact: what source-controller publishes for consumers. */
const artifactSchema = (): JsonSchema =>
  obj(
    {
      digest: str({ pattern: '^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$', description: 'Digest of the file, in the form <algorithm>:<checksum>.' }),
      lastUpdateTime: str({ format: 'date-time', description: 'When the artifact was last updated.' }),
      metadata: { type: 'object', additionalProperties: { type: 'string' } },
      path: str({ description: 'Relative path of the artifact in the storage.' }),
      revision: str({ description: 'Human-readable identifier of the source revision, e.g. main@sha1:<commit>.' }),
      size: int64(),
      url: str({ description: 'HTTP address of the artifact as exposed by the controller.' }),
    },
    ['lastUpdateTime', 'path', 'revision', 'url'],
  );

/** conditionSchema is metav1.Condition. */
const conditionSchema = (): JsonSchema =>
  obj(
    {
      lastTransitionTime: str({ format: 'date-time' }),
      message: str({ maxLength: 32768 }),
      observedGeneration: int64(),
      reason: str({ maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
      status: str({ enum: ['True', 'False', 'Unknown'] }),
      type: str({ maxLength: 316, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$' }),
    },
    ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
  );

const commonStatus = (): Record<string, JsonSchema> => ({
  artifact: artifactSchema(),
  conditions: list(conditionSchema()),
  lastHandledReconcileAt: str(),
  observedGeneration: int64(),
  observedIgnore: str(),
});

const gitRepositorySpec = (): JsonSchema =>
  obj(
    {
      ignore: str(),
      include: list(obj({ fromPath: str(), repository: localRef(), toPath: str() }, ['repository'])),
      interval: interval(),
      provider: str({ enum: ['generic', 'azure', 'github'] }),
      proxySecretRef: localRef(),
      recurseSubmodules: bool(),
      ref: obj({ branch: str(), commit: str(), name: str(), semver: str(), tag: str() }),
      secretRef: localRef(),
      sparseCheckout: list(str()),
      suspend: bool(),
      timeout: timeout(),
      url: str({ pattern: '^(http|https|ssh)://.*$' }),
      verify: obj({ mode: str({ enum: ['head', 'HEAD', 'Tag', 'TagAndHEAD'], default: 'HEAD' }), secretRef: localRef() }, ['secretRef']),
    },
    ['interval', 'url'],
  );

const ociRepositorySpec = (): JsonSchema =>
  obj(
    {
      certSecretRef: localRef(),
      ignore: str(),
      insecure: bool(),
      interval: interval(),
      layerSelector: obj({ mediaType: str(), operation: str({ enum: ['extract', 'copy'] }) }),
      provider: str({ enum: ['generic', 'aws', 'azure', 'gcp'], default: 'generic' }),
      proxySecretRef: localRef(),
      ref: obj({ digest: str(), semver: str(), semverFilter: str(), tag: str() }),
      secretRef: localRef(),
      serviceAccountName: str(),
      suspend: bool(),
      timeout: timeout(),
      url: str({ pattern: '^oci://.*$' }),
      verify: obj(
        {
          matchOIDCIdentity: list(obj({ issuer: str(), subject: str() }, ['issuer', 'subject'])),
          provider: str({ enum: ['cosign', 'notation'], default: 'cosign' }),
          secretRef: localRef(),
        },
        ['provider'],
      ),
    },
    ['interval', 'url'],
  );

const bucketSpec = (): JsonSchema =>
  obj(
    {
      accessFrom: obj({ namespaceSelectors: list(obj({ matchLabels: { type: 'object', additionalProperties: { type: 'string' } } })) }, ['namespaceSelectors']),
      bucketName: str(),
      certSecretRef: localRef(),
      endpoint: str(),
      ignore: str(),
      insecure: bool(),
      interval: interval(),
      prefix: str(),
      provider: str({ enum: ['generic', 'aws', 'gcp', 'azure'], default: 'generic' }),
      proxySecretRef: localRef(),
      region: str(),
      secretRef: localRef(),
      sts: obj({ certSecretRef: localRef(), endpoint: str({ pattern: '^(http|https)://.*$' }), provider: str({ enum: ['aws', 'ldap'] }), secretRef: localRef() }, ['endpoint', 'provider']),
      suspend: bool(),
      timeout: timeout(),
    },
    ['bucketName', 'endpoint', 'interval'],
  );

interface FluxKind {
  kind: string;
  plural: string;
  shortNames: string[];
  version: string;
  spec: JsonSchema;
  status: Record<string, JsonSchema>;
  urlColumn: string;
}

const KINDS: FluxKind[] = [
  {
    kind: 'GitRepository',
    plural: 'gitrepositories',
    shortNames: ['gitrepo'],
    version: 'v1',
    spec: gitRepositorySpec(),
    status: {
      ...commonStatus(),
      includedArtifacts: list(artifactSchema()),
      observedInclude: list(obj({ fromPath: str(), repository: localRef(), toPath: str() }, ['repository'])),
      observedRecurseSubmodules: bool(),
      observedSparseCheckout: list(str()),
      sourceVerificationMode: str(),
    },
    urlColumn: '.spec.url',
  },
  {
    kind: 'OCIRepository',
    plural: 'ocirepositories',
    shortNames: ['ocirepo'],
    version: 'v1beta2',
    spec: ociRepositorySpec(),
    status: { ...commonStatus(), contentConfigChecksum: str(), observedLayerSelector: obj({ mediaType: str(), operation: str({ enum: ['extract', 'copy'] }) }), url: str() },
    urlColumn: '.spec.url',
  },
  {
    kind: 'Bucket',
    plural: 'buckets',
    shortNames: [],
    version: 'v1beta2',
    spec: bucketSpec(),
    status: { ...commonStatus(), url: str() },
    urlColumn: '.spec.endpoint',
  },
];

/** fluxSourceCrds returns the GitRepository, OCIRepository and Bucket CRDs (one served+stored version each). */
export function fluxSourceCrds(): CustomResourceDefinition[] {
  return KINDS.map((k) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${k.plural}.${FLUX_SOURCE_GROUP}`, labels: { 'app.kubernetes.io/component': 'source-controller', 'app.kubernetes.io/part-of': 'flux', 'app.kubernetes.io/managed-by': 'ripple' } },
    spec: {
      group: FLUX_SOURCE_GROUP,
      names: { kind: k.kind, listKind: `${k.kind}List`, plural: k.plural, singular: k.kind.toLowerCase(), ...(k.shortNames.length > 0 ? { shortNames: k.shortNames } : {}) },
      scope: 'Namespaced',
      conversion: { strategy: 'None' },
      versions: [
        {
          name: k.version,
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: obj({
              apiVersion: str(),
              kind: str(),
              metadata: { type: 'object' },
              spec: k.spec,
              status: obj(k.status),
            }),
          },
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: k.kind === 'Bucket' ? 'Endpoint' : 'URL', type: 'string', jsonPath: k.urlColumn },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
            { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type==\"Ready\")].status" },
            { name: 'Status', type: 'string', jsonPath: ".status.conditions[?(@.type==\"Ready\")].message" },
          ],
        },
      ],
    },
  }));
}
