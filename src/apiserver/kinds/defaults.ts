// Defaulting of built-in kinds the way kube's generated SetObjectDefaults_<Kind> functions do it: walk the object
// along the generated type tree (schema walkBuiltin) and call the SetDefaults_<Type> of every struct met, parents
// first. The defaulters are keyed by model class, so a PodSpec is defaulted the same inside a Job, a CronJob's job
// template, a StatefulSet or a PodTemplate without any kind repeating it.
// Go: pkg/apis/{core,apps,batch,autoscaling,storage,scheduling,admissionregistration,flowcontrol}/v1*/defaults.go
import { walkBuiltin } from '../schema/index.js';
import { asRecord } from '../printers.js';
import { isPlainObject, type KubeObject } from '../types.js';

type Obj = Record<string, unknown>;
type Defaulter = (o: Obj) => void;

const setIfAbsent = (o: Obj, k: string, v: unknown) => {
  if (o[k] === undefined || o[k] === null) o[k] = v;
};

// Go: SetDefaults_Container — the pull policy follows the image tag (":latest" or none: Always).
function defaultContainer(c: Obj): void {
  const image = typeof c.image === 'string' ? c.image : '';
  if (!c.imagePullPolicy) {
    const tag = image.includes('@') ? 'digest' : (image.split('/').pop() ?? '').split(':')[1];
    c.imagePullPolicy = tag === undefined || tag === 'latest' ? 'Always' : 'IfNotPresent';
  }
  if (!c.terminationMessagePath) c.terminationMessagePath = '/dev/termination-log';
  if (!c.terminationMessagePolicy) c.terminationMessagePolicy = 'File';
  // Container.Resources is a struct held by value: the typed round trip always writes it.
  setIfAbsent(c, 'resources', {});
}

// Go: SetDefaults_Probe, SetDefaults_HTTPGetAction
function defaultProbe(p: Obj): void {
  setIfAbsent(p, 'timeoutSeconds', 1);
  setIfAbsent(p, 'periodSeconds', 10);
  setIfAbsent(p, 'successThreshold', 1);
  setIfAbsent(p, 'failureThreshold', 3);
}

const VOLUME_SOURCES = new Set(['name']);
// Go: SetDefaults_Volume — a volume naming no source is an emptyDir.
function defaultVolume(v: Obj): void {
  if (Object.keys(v).every((k) => VOLUME_SOURCES.has(k))) v.emptyDir = {};
}

const defaultMode420: Defaulter = (o) => setIfAbsent(o, 'defaultMode', 420);

// Go: SetDefaults_PodSpec (only what every PodSpec gets; SetDefaults_Pod adds more for bare Pods).
function defaultPodSpec(s: Obj): void {
  setIfAbsent(s, 'dnsPolicy', 'ClusterFirst');
  if (!s.restartPolicy) s.restartPolicy = 'Always';
  setIfAbsent(s, 'securityContext', {});
  setIfAbsent(s, 'terminationGracePeriodSeconds', 30);
  if (!s.schedulerName) s.schedulerName = 'default-scheduler';
}

// Go: apps/v1 SetDefaults_StatefulSet
function defaultStatefulSet(o: Obj): void {
  if (!isPlainObject(o.spec)) return;
  const spec = o.spec;
  if (!spec.podManagementPolicy) spec.podManagementPolicy = 'OrderedReady';
  const strategy = asRecord(spec.updateStrategy);
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') strategy.rollingUpdate = { partition: 0, ...asRecord(strategy.rollingUpdate) };
  spec.updateStrategy = strategy;
  setIfAbsent(spec, 'replicas', 1);
  setIfAbsent(spec, 'revisionHistoryLimit', 10);
  spec.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Retain', whenScaled: 'Retain', ...asRecord(spec.persistentVolumeClaimRetentionPolicy) };
}

// Go: apps/v1 SetDefaults_DaemonSet
function defaultDaemonSet(o: Obj): void {
  if (!isPlainObject(o.spec)) return;
  const spec = o.spec;
  const strategy = asRecord(spec.updateStrategy);
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') strategy.rollingUpdate = { maxUnavailable: 1, maxSurge: 0, ...asRecord(strategy.rollingUpdate) };
  spec.updateStrategy = strategy;
  setIfAbsent(spec, 'revisionHistoryLimit', 10);
}

// Go: core/v1 SetDefaults_ReplicationController — selector and labels come from the template's labels.
function defaultReplicationController(o: Obj): void {
  if (!isPlainObject(o.spec)) return;
  const spec = o.spec;
  const labels = asRecord(asRecord(asRecord(spec.template).metadata).labels);
  if (isPlainObject(spec.template) && Object.keys(labels).length > 0) {
    if (Object.keys(asRecord(spec.selector)).length === 0) spec.selector = { ...labels };
    const meta = asRecord(o.metadata);
    if (Object.keys(asRecord(meta.labels)).length === 0) o.metadata = { ...meta, labels: { ...labels } };
  }
  setIfAbsent(spec, 'replicas', 1);
}

// Go: batch/v1 SetDefaults_Job (JobPodReplacementPolicy is on by default in 1.32).
function defaultJob(o: Obj): void {
  if (!isPlainObject(o.spec)) return;
  const spec = o.spec;
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setIfAbsent(spec, 'parallelism', 1);
  setIfAbsent(spec, 'backoffLimit', spec.backoffLimitPerIndex == null ? 6 : 2147483647);
  const labels = asRecord(asRecord(asRecord(spec.template).metadata).labels);
  const meta = asRecord(o.metadata);
  if (Object.keys(asRecord(meta.labels)).length === 0 && Object.keys(labels).length > 0) o.metadata = { ...meta, labels: { ...labels } };
  if (!spec.completionMode) spec.completionMode = 'NonIndexed';
  setIfAbsent(spec, 'suspend', false);
  if (!spec.podReplacementPolicy) spec.podReplacementPolicy = spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
}

// Go: batch/v1 SetDefaults_CronJob
function defaultCronJob(o: Obj): void {
  if (!isPlainObject(o.spec)) return;
  const spec = o.spec;
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = 'Allow';
  setIfAbsent(spec, 'suspend', false);
  setIfAbsent(spec, 'successfulJobsHistoryLimit', 3);
  setIfAbsent(spec, 'failedJobsHistoryLimit', 1);
}

// Go: autoscaling/v2 SetDefaults_HorizontalPodAutoscaler and its behavior rules (GenerateHPAScale{Up,Down}Rules).
function defaultHPAv2(o: Obj): void {
  if (!isPlainObject(o.spec)) return;
  const spec = o.spec;
  setIfAbsent(spec, 'minReplicas', 1);
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  }
  if (isPlainObject(spec.behavior)) {
    const b = spec.behavior;
    const up = asRecord(b.scaleUp);
    b.scaleUp = {
      stabilizationWindowSeconds: up.stabilizationWindowSeconds ?? 0,
      selectPolicy: up.selectPolicy ?? 'Max',
      policies: up.policies ?? [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    };
    const down = asRecord(b.scaleDown);
    b.scaleDown = {
      stabilizationWindowSeconds: down.stabilizationWindowSeconds ?? 300,
      selectPolicy: down.selectPolicy ?? 'Max',
      policies: down.policies ?? [{ type: 'Percent', value: 100, periodSeconds: 15 }],
    };
  }
}

// Go: admissionregistration/v1 SetDefaults_ValidatingWebhook / SetDefaults_MutatingWebhook
function defaultWebhook(w: Obj): void {
  if (!w.failurePolicy) w.failurePolicy = 'Fail';
  if (!w.matchPolicy) w.matchPolicy = 'Equivalent';
  setIfAbsent(w, 'namespaceSelector', {});
  setIfAbsent(w, 'objectSelector', {});
  setIfAbsent(w, 'timeoutSeconds', 10);
}

// Go: admissionregistration/v1 SetDefaults_MatchResources
function defaultMatchResources(m: Obj): void {
  if (!m.matchPolicy) m.matchPolicy = 'Equivalent';
  setIfAbsent(m, 'namespaceSelector', {});
  setIfAbsent(m, 'objectSelector', {});
}

// Go: flowcontrol/v1 SetDefaults_LimitedPriorityLevelConfiguration, SetDefaults_QueuingConfiguration
function defaultLimitedPriorityLevel(l: Obj): void {
  setIfAbsent(l, 'nominalConcurrencyShares', 30);
  setIfAbsent(l, 'lendablePercent', 0);
}

// Embedded ObjectMeta is a struct held by value: kube 1.32's encoder writes its zero creationTimestamp as null.
const templateMeta: Defaulter = (t) => {
  t.metadata = { creationTimestamp: null, ...asRecord(t.metadata) };
};

/** CLASS_DEFAULTS maps a model class to its SetDefaults_<Type>. */
const CLASS_DEFAULTS: Record<string, Defaulter> = {
  V1PodTemplateSpec: templateMeta,
  V1JobTemplateSpec: templateMeta,
  V1PodSpec: defaultPodSpec,
  V1Container: defaultContainer,
  V1EphemeralContainer: defaultContainer,
  V1ContainerPort: (p) => {
    if (!p.protocol) p.protocol = 'TCP';
  },
  V1Probe: defaultProbe,
  V1HTTPGetAction: (h) => {
    if (!h.path) h.path = '/';
    if (!h.scheme) h.scheme = 'HTTP';
  },
  V1ObjectFieldSelector: (f) => {
    if (!f.apiVersion) f.apiVersion = 'v1';
  },
  V1Volume: defaultVolume,
  V1SecretVolumeSource: defaultMode420,
  V1ConfigMapVolumeSource: defaultMode420,
  V1DownwardAPIVolumeSource: defaultMode420,
  V1ProjectedVolumeSource: defaultMode420,
  V1ServiceAccountTokenProjection: (t) => setIfAbsent(t, 'expirationSeconds', 3600),
  V1PersistentVolumeClaimSpec: (s) => {
    if (!s.volumeMode) s.volumeMode = 'Filesystem';
  },
  V1PersistentVolumeClaim: (c) => {
    templateMeta(c);
    c.status = { phase: 'Pending', ...asRecord(c.status) };
  },
  V1PersistentVolume: (v) => {
    v.status = { phase: 'Pending', ...asRecord(v.status) };
    if (isPlainObject(v.spec)) {
      if (!v.spec.persistentVolumeReclaimPolicy) v.spec.persistentVolumeReclaimPolicy = 'Retain';
      if (!v.spec.volumeMode) v.spec.volumeMode = 'Filesystem';
    }
  },
  V1NodeStatus: (s) => {
    if (s.allocatable == null && s.capacity != null) s.allocatable = s.capacity;
  },
  V1ReplicationController: defaultReplicationController,
  V1StatefulSet: defaultStatefulSet,
  V1DaemonSet: defaultDaemonSet,
  V1Job: defaultJob,
  V1CronJob: defaultCronJob,
  V2HorizontalPodAutoscaler: defaultHPAv2,
  V1HorizontalPodAutoscalerSpec: (s) => setIfAbsent(s, 'minReplicas', 1),
  V1StorageClass: (c) => {
    if (!c.reclaimPolicy) c.reclaimPolicy = 'Delete';
    if (!c.volumeBindingMode) c.volumeBindingMode = 'Immediate';
  },
  V1CSIDriverSpec: (s) => {
    setIfAbsent(s, 'attachRequired', true);
    setIfAbsent(s, 'podInfoOnMount', false);
    setIfAbsent(s, 'storageCapacity', false);
    setIfAbsent(s, 'requiresRepublish', false);
    if (!s.fsGroupPolicy) s.fsGroupPolicy = 'ReadWriteOnceWithFSType';
    if (!Array.isArray(s.volumeLifecycleModes) || s.volumeLifecycleModes.length === 0) s.volumeLifecycleModes = ['Persistent'];
  },
  V1PriorityClass: (p) => {
    if (!p.preemptionPolicy) p.preemptionPolicy = 'PreemptLowerPriority';
  },
  V1ValidatingWebhook: defaultWebhook,
  V1MutatingWebhook: (w) => {
    defaultWebhook(w);
    if (!w.reinvocationPolicy) w.reinvocationPolicy = 'Never';
  },
  V1RuleWithOperations: (r) => {
    if (!r.scope) r.scope = '*';
  },
  V1NamedRuleWithOperations: (r) => {
    if (!r.scope) r.scope = '*';
  },
  AdmissionregistrationV1ServiceReference: (s) => setIfAbsent(s, 'port', 443),
  ApiregistrationV1ServiceReference: (s) => setIfAbsent(s, 'port', 443),
  V1ValidatingAdmissionPolicySpec: (s) => {
    if (!s.failurePolicy) s.failurePolicy = 'Fail';
  },
  V1MatchResources: defaultMatchResources,
  V1FlowSchemaSpec: (s) => setIfAbsent(s, 'matchingPrecedence', 1000),
  V1LimitedPriorityLevelConfiguration: defaultLimitedPriorityLevel,
  V1ExemptPriorityLevelConfiguration: (e) => {
    setIfAbsent(e, 'nominalConcurrencyShares', 0);
    setIfAbsent(e, 'lendablePercent', 0);
  },
  V1QueuingConfiguration: (q) => {
    setIfAbsent(q, 'queues', 64);
    setIfAbsent(q, 'handSize', 8);
    setIfAbsent(q, 'queueLengthLimit', 50);
  },
};

const visitDefaults = (cls: string, o: Obj) => CLASS_DEFAULTS[cls]?.(o);

/** applyGoDefaults defaults obj (a built-in group/version/kind, in place) like kube's generated defaulters. */
export function applyGoDefaults(group: string, version: string, kind: string, obj: KubeObject): void {
  walkBuiltin(group, version, kind, obj as Obj, visitDefaults);
}
