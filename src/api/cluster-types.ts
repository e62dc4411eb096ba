// Cluster types: SveltosCluster, ClusterSet and Set (lib.projectsveltos.io). Shapes follow projectsveltos/libsveltos
// api/v1beta1 (sveltoscluster_type.go, clusterset_type.go, set_type.go).
import { labelSelectorSchema, objectReferenceSchema, resourceSelectorSchema, type KubeObject } from './common-types.js';
import { bool, bytes, dateTime, int, list, obj, opt, str, strEnum, strMap, type Static } from './schema-dsl.js';

const clusterCheckSchema = () =>
  obj({
    condition: str({ description: 'Condition is a Lua script evaluated over the selected resources.' }),
    name: str(),
    resourceSelectors: list(resourceSelectorSchema('current')),
  });

/** sveltosClusterSpecSchema is SveltosCluster spec. */
export const sveltosClusterSpecSchema = () =>
  obj(
    {
      activeWindow: opt(obj({ from: str({ minLength: 1 }), to: str({ minLength: 1 }) })),
      consecutiveFailureThreshold: opt(int({ default: 3 })),
      data: opt(strMap()),
      kubeconfigKeyName: opt(str({ description: 'KubeconfigKeyName is the Secret key holding the kubeconfig (default: the first key).' })),
      kubeconfigName: opt(str({ description: 'KubeconfigName is the Secret with the kubeconfig (default <name>-sveltos-kubeconfig).' })),
      livenessChecks: opt(list(clusterCheckSchema())),
      paused: opt(bool()),
      pullMode: opt(
        bool({ default: false, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] }),
      ),
      readinessChecks: opt(list(clusterCheckSchema())),
      tokenRequestRenewalOption: opt(
        obj({
          kubeconfigKeyName: opt(str()),
          renewTokenRequestInterval: str(),
          saName: opt(str()),
          saNamespace: opt(str()),
          tokenDuration: opt(str()),
        }),
      ),
      workloadIdentity: opt(
        obj(
          {
            aws: opt(obj({ clusterName: str({ minLength: 1 }), region: opt(str()), roleARN: opt(str()) })),
            azure: opt(
              obj({
                clientID: str({ minLength: 1 }),
                clusterName: opt(str()),
                resourceGroup: opt(str()),
                subscriptionID: opt(str()),
                tenantID: str({ minLength: 1 }),
              }),
            ),
            caSecretRef: opt(obj({ name: opt(str({ default: '' })) }, { 'x-kubernetes-map-type': 'atomic' })),
            endpoint: str({ minLength: 1 }),
            gcp: opt(obj({ clusterName: str({ minLength: 1 }), location: str({ minLength: 1 }), projectID: str({ minLength: 1 }) })),
            provider: strEnum(['AWS', 'GCP', 'Azure']),
          },
          {
            'x-kubernetes-validations': [
              { rule: "(self.provider == 'AWS') == has(self.aws)", message: 'aws must be set if and only if provider is AWS' },
              { rule: "(self.provider == 'GCP') == has(self.gcp)", message: 'gcp must be set if and only if provider is GCP' },
              { rule: "(self.provider == 'Azure') == has(self.azure)", message: 'azure must be set if and only if provider is Azure' },
            ],
          },
        ),
      ),
    },
    {
      'x-kubernetes-validations': [
        { rule: '!has(self.workloadIdentity) || !has(self.kubeconfigName)', message: 'workloadIdentity, kubeconfigName: conflict' },
      ],
    },
  );
/** SveltosClusterSpec says how to reach a cluster registered with Sveltos. */
export type SveltosClusterSpec = Static<ReturnType<typeof sveltosClusterSpecSchema>>;

/** sveltosClusterStatusSchema is SveltosCluster status. */
export const sveltosClusterStatusSchema = () =>
  obj({
    activeWindowHash: opt(bytes()),
    agentLastReportTime: opt(dateTime()),
    connectionFailures: opt(int({ default: 0 })),
    connectionStatus: opt(strEnum(['Healthy', 'Down'])),
    failureMessage: opt(str()),
    lastReconciledTokenRequestAt: opt(str()),
    nextPause: opt(dateTime()),
    nextUnpause: opt(dateTime()),
    ready: opt(bool({ description: 'Ready is true when the cluster can be managed; only ready clusters match selectors.' })),
    version: opt(str()),
  });
/** SveltosClusterStatus is the observed state of a SveltosCluster (ready, version, connection). */
export type SveltosClusterStatus = Static<ReturnType<typeof sveltosClusterStatusSchema>>;

/** clusterSetSpecSchema is ClusterSet / Set spec. */
export const clusterSetSpecSchema = () =>
  obj({
    clusterRefs: opt(list(objectReferenceSchema())),
    clusterSelector: opt(labelSelectorSchema()),
    maxReplicas: opt(int()),
  });
/** ClusterSetSpec selects candidate clusters and how many of them to pick. */
export type ClusterSetSpec = Static<ReturnType<typeof clusterSetSpecSchema>>;

/** clusterSetStatusSchema is ClusterSet / Set status. */
export const clusterSetStatusSchema = () =>
  obj({ matchingClusterRefs: opt(list(objectReferenceSchema())), selectedClusterRefs: opt(list(objectReferenceSchema())) });
/** ClusterSetStatus lists matching and selected clusters. */
export type ClusterSetStatus = Static<ReturnType<typeof clusterSetStatusSchema>>;

/** SveltosCluster is a lib.projectsveltos.io/v1beta1 SveltosCluster (namespaced). */
export interface SveltosCluster extends KubeObject<'lib.projectsveltos.io/v1beta1', 'SveltosCluster'> {
  spec?: SveltosClusterSpec;
  status?: SveltosClusterStatus;
}
/** ClusterSet is a lib.projectsveltos.io/v1beta1 ClusterSet (cluster-scoped). */
export interface ClusterSet extends KubeObject<'lib.projectsveltos.io/v1beta1', 'ClusterSet'> {
  spec?: ClusterSetSpec;
  status?: ClusterSetStatus;
}
/** SveltosSet is a lib.projectsveltos.io/v1beta1 Set (namespaced; `Set` would shadow the JS built-in). */
export interface SveltosSet extends KubeObject<'lib.projectsveltos.io/v1beta1', 'Set'> {
  spec?: ClusterSetSpec;
  status?: ClusterSetStatus;
}
