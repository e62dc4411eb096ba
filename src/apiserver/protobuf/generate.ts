// generate: builds messages.generated.ts, the field table the protobuf decoder uses, from Kubernetes' own API
// definitions (generated.proto for field numbers and wire types, types.go for JSON names, pointers and omitempty).
// Development tool, not used at run time. Usage (git checkouts of kubernetes/api and kubernetes/apimachinery):
//   node --import tsx src/apiserver/protobuf/generate.ts API_REPO APIMACHINERY_REPO [TAG=v0.32.0]
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [apiRepo, machineryRepo, tag = 'v0.32.0'] = process.argv.slice(2);
if (!apiRepo || !machineryRepo) {
  process.stderr.write('usage: generate.ts API_REPO APIMACHINERY_REPO [TAG]\n');
  process.exit(2);
}

// Where each proto package lives: [repo, directory].
const PACKAGES: Record<string, [string, string]> = {
  'k8s.io.api.core.v1': [apiRepo, 'core/v1'],
  'k8s.io.api.apps.v1': [apiRepo, 'apps/v1'],
  'k8s.io.api.rbac.v1': [apiRepo, 'rbac/v1'],
  'k8s.io.api.networking.v1': [apiRepo, 'networking/v1'],
  'k8s.io.api.coordination.v1': [apiRepo, 'coordination/v1'],
  'k8s.io.api.discovery.v1': [apiRepo, 'discovery/v1'],
  'k8s.io.api.events.v1': [apiRepo, 'events/v1'],
  'k8s.io.api.autoscaling.v1': [apiRepo, 'autoscaling/v1'],
  'k8s.io.api.authorization.v1': [apiRepo, 'authorization/v1'],
  'k8s.io.api.authentication.v1': [apiRepo, 'authentication/v1'],
  'k8s.io.api.autoscaling.v2': [apiRepo, 'autoscaling/v2'],
  'k8s.io.api.batch.v1': [apiRepo, 'batch/v1'],
  'k8s.io.api.policy.v1': [apiRepo, 'policy/v1'],
  'k8s.io.api.storage.v1': [apiRepo, 'storage/v1'],
  'k8s.io.api.scheduling.v1': [apiRepo, 'scheduling/v1'],
  'k8s.io.api.node.v1': [apiRepo, 'node/v1'],
  'k8s.io.api.admissionregistration.v1': [apiRepo, 'admissionregistration/v1'],
  'k8s.io.api.certificates.v1': [apiRepo, 'certificates/v1'],
  'k8s.io.api.flowcontrol.v1': [apiRepo, 'flowcontrol/v1'],
  'k8s.io.apimachinery.pkg.apis.meta.v1': [machineryRepo, 'pkg/apis/meta/v1'],
  'k8s.io.apimachinery.pkg.runtime': [machineryRepo, 'pkg/runtime'],
  'k8s.io.apimachinery.pkg.util.intstr': [machineryRepo, 'pkg/util/intstr'],
  'k8s.io.apimachinery.pkg.api.resource': [machineryRepo, 'pkg/api/resource'],
};

// The kinds the embedded server serves, by apiVersion/kind.
const ROOTS: Record<string, string> = {
  'v1/Namespace': 'k8s.io.api.core.v1.Namespace',
  'v1/ConfigMap': 'k8s.io.api.core.v1.ConfigMap',
  'v1/Secret': 'k8s.io.api.core.v1.Secret',
  'v1/Service': 'k8s.io.api.core.v1.Service',
  'v1/Endpoints': 'k8s.io.api.core.v1.Endpoints',
  'v1/Pod': 'k8s.io.api.core.v1.Pod',
  'v1/ServiceAccount': 'k8s.io.api.core.v1.ServiceAccount',
  'v1/Event': 'k8s.io.api.core.v1.Event',
  'apps/v1/Deployment': 'k8s.io.api.apps.v1.Deployment',
  'apps/v1/ReplicaSet': 'k8s.io.api.apps.v1.ReplicaSet',
  'rbac.authorization.k8s.io/v1/Role': 'k8s.io.api.rbac.v1.Role',
  'rbac.authorization.k8s.io/v1/ClusterRole': 'k8s.io.api.rbac.v1.ClusterRole',
  'rbac.authorization.k8s.io/v1/RoleBinding': 'k8s.io.api.rbac.v1.RoleBinding',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': 'k8s.io.api.rbac.v1.ClusterRoleBinding',
  'networking.k8s.io/v1/NetworkPolicy': 'k8s.io.api.networking.v1.NetworkPolicy',
  'networking.k8s.io/v1/Ingress': 'k8s.io.api.networking.v1.Ingress',
  'networking.k8s.io/v1/IngressClass': 'k8s.io.api.networking.v1.IngressClass',
  'coordination.k8s.io/v1/Lease': 'k8s.io.api.coordination.v1.Lease',
  'discovery.k8s.io/v1/EndpointSlice': 'k8s.io.api.discovery.v1.EndpointSlice',
  'events.k8s.io/v1/Event': 'k8s.io.api.events.v1.Event',
  'autoscaling/v1/Scale': 'k8s.io.api.autoscaling.v1.Scale',
  'authorization.k8s.io/v1/SelfSubjectAccessReview': 'k8s.io.api.authorization.v1.SelfSubjectAccessReview',
  'authorization.k8s.io/v1/SubjectAccessReview': 'k8s.io.api.authorization.v1.SubjectAccessReview',
  'authorization.k8s.io/v1/LocalSubjectAccessReview': 'k8s.io.api.authorization.v1.LocalSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectRulesReview': 'k8s.io.api.authorization.v1.SelfSubjectRulesReview',
  'authentication.k8s.io/v1/SelfSubjectReview': 'k8s.io.api.authentication.v1.SelfSubjectReview',
  'authentication.k8s.io/v1/TokenReview': 'k8s.io.api.authentication.v1.TokenReview',
  'authentication.k8s.io/v1/TokenRequest': 'k8s.io.api.authentication.v1.TokenRequest',
  'v1/PersistentVolumeClaim': 'k8s.io.api.core.v1.PersistentVolumeClaim',
  'v1/PersistentVolume': 'k8s.io.api.core.v1.PersistentVolume',
  'v1/Node': 'k8s.io.api.core.v1.Node',
  'v1/ResourceQuota': 'k8s.io.api.core.v1.ResourceQuota',
  'v1/LimitRange': 'k8s.io.api.core.v1.LimitRange',
  'v1/ReplicationController': 'k8s.io.api.core.v1.ReplicationController',
  'v1/PodTemplate': 'k8s.io.api.core.v1.PodTemplate',
  'v1/Binding': 'k8s.io.api.core.v1.Binding',
  'v1/ComponentStatus': 'k8s.io.api.core.v1.ComponentStatus',
  'apps/v1/StatefulSet': 'k8s.io.api.apps.v1.StatefulSet',
  'apps/v1/DaemonSet': 'k8s.io.api.apps.v1.DaemonSet',
  'apps/v1/ControllerRevision': 'k8s.io.api.apps.v1.ControllerRevision',
  'batch/v1/Job': 'k8s.io.api.batch.v1.Job',
  'batch/v1/CronJob': 'k8s.io.api.batch.v1.CronJob',
  'autoscaling/v2/HorizontalPodAutoscaler': 'k8s.io.api.autoscaling.v2.HorizontalPodAutoscaler',
  'autoscaling/v1/HorizontalPodAutoscaler': 'k8s.io.api.autoscaling.v1.HorizontalPodAutoscaler',
  'policy/v1/PodDisruptionBudget': 'k8s.io.api.policy.v1.PodDisruptionBudget',
  'policy/v1/Eviction': 'k8s.io.api.policy.v1.Eviction',
  'storage.k8s.io/v1/StorageClass': 'k8s.io.api.storage.v1.StorageClass',
  'storage.k8s.io/v1/CSIDriver': 'k8s.io.api.storage.v1.CSIDriver',
  'storage.k8s.io/v1/CSINode': 'k8s.io.api.storage.v1.CSINode',
  'storage.k8s.io/v1/CSIStorageCapacity': 'k8s.io.api.storage.v1.CSIStorageCapacity',
  'storage.k8s.io/v1/VolumeAttachment': 'k8s.io.api.storage.v1.VolumeAttachment',
  'scheduling.k8s.io/v1/PriorityClass': 'k8s.io.api.scheduling.v1.PriorityClass',
  'node.k8s.io/v1/RuntimeClass': 'k8s.io.api.node.v1.RuntimeClass',
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': 'k8s.io.api.admissionregistration.v1.ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': 'k8s.io.api.admissionregistration.v1.MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': 'k8s.io.api.admissionregistration.v1.ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding': 'k8s.io.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding',
  'certificates.k8s.io/v1/CertificateSigningRequest': 'k8s.io.api.certificates.v1.CertificateSigningRequest',
  'flowcontrol.apiserver.k8s.io/v1/FlowSchema': 'k8s.io.api.flowcontrol.v1.FlowSchema',
  'flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration': 'k8s.io.api.flowcontrol.v1.PriorityLevelConfiguration',
  'meta.k8s.io/v1/DeleteOptions': 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  'v1/DeleteOptions': 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions',
};

const git = (repo: string, ...args: string[]) => execFileSync('git', ['-C', join(repo), ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });

interface ProtoField {
  num: number;
  name: string;
  type: string;
  repeated: boolean;
  map?: [string, string];
}
interface GoField {
  json: string;
  inline: boolean;
  pointer: boolean;
  omitempty: boolean;
}

const SCALARS = new Set(['string', 'int32', 'int64', 'uint32', 'uint64', 'bool', 'bytes', 'double', 'float', 'sint32', 'sint64', 'fixed32', 'fixed64']);

function parseProto(pkg: string, text: string): Map<string, ProtoField[]> {
  const out = new Map<string, ProtoField[]>();
  let current: ProtoField[] | undefined;
  const qualify = (t: string) => (SCALARS.has(t) ? t : t.startsWith('.') ? t.slice(1) : `${pkg}.${t}`);
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    let m: RegExpExecArray | null;
    if ((m = /^message (\w+) \{$/.exec(line))) out.set(`${pkg}.${m[1]}`, (current = []));
    else if ((m = /^(optional|repeated) (\S+) (\w+) = (\d+)/.exec(line)) && current) {
      current.push({ num: Number(m[4]), name: m[3], type: qualify(m[2]), repeated: m[1] === 'repeated' });
    } else if ((m = /^map<(\S+), (\S+)> (\w+) = (\d+)/.exec(line)) && current) {
      current.push({ num: Number(m[4]), name: m[3], type: 'map', repeated: false, map: [qualify(m[1]), qualify(m[2])] });
    }
  }
  return out;
}

// Go struct fields by protobuf field number: JSON name, inline, pointer, omitempty.
function parseGo(text: string): Map<string, Map<number, GoField>> {
  const out = new Map<string, Map<number, GoField>>();
  let current: Map<number, GoField> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = /^type (\w+) struct \{/.exec(line))) {
      out.set(m[1], (current = new Map()));
      continue;
    }
    if (line === '}') {
      current = undefined;
      continue;
    }
    if (!current || !line.includes('protobuf:"')) continue;
    const tag = /`(.*)`/.exec(line)?.[1] ?? '';
    const pb = /protobuf:"([^"]*)"/.exec(tag)?.[1] ?? '';
    const num = Number(pb.split(',')[1]);
    const json = /json:"([^"]*)"/.exec(tag)?.[1] ?? '';
    const decl = line.slice(0, line.indexOf('`')).trim().split(/\s+/);
    const goType = decl.length >= 2 ? decl[1] : decl[0];
    const [jsonName, ...opts] = json.split(',');
    current.set(num, { json: jsonName, inline: opts.includes('inline'), pointer: goType.startsWith('*'), omitempty: opts.includes('omitempty') });
  }
  return out;
}

const protos = new Map<string, ProtoField[]>();
const goInfo = new Map<string, Map<string, Map<number, GoField>>>();
for (const [pkg, [repo, dir]] of Object.entries(PACKAGES)) {
  for (const [k, v] of parseProto(pkg, git(repo, 'show', `${tag}:${dir}/generated.proto`))) protos.set(k, v);
  const files = git(repo, 'ls-tree', '--name-only', `${tag}:${dir}`).split('\n').filter((f) => f.endsWith('.go') && !f.endsWith('_test.go') && !f.startsWith('zz_') && f !== 'generated.pb.go');
  const structs = new Map<string, Map<number, GoField>>();
  for (const f of files) for (const [k, v] of parseGo(git(repo, 'show', `${tag}:${dir}/${f}`))) structs.set(k, v);
  goInfo.set(pkg, structs);
}

// Flags of a field entry: 1 repeated, 2 map, 4 drop zero values (omitempty non-pointer), 8 inline.
const table: Record<string, [number, string, string, number][]> = {};
const queue = Object.values(ROOTS);
const seen = new Set<string>();
while (queue.length > 0) {
  const name = queue.pop()!;
  if (seen.has(name)) continue;
  seen.add(name);
  const fields = protos.get(name);
  if (!fields) throw new Error(`message ${name} not found`);
  const pkg = name.slice(0, name.lastIndexOf('.'));
  const goStruct = goInfo.get(pkg)?.get(name.slice(pkg.length + 1));
  table[name] = fields.map((f) => {
    const g = goStruct?.get(f.num);
    let flags = 0;
    if (f.repeated) flags |= 1;
    if (f.map) flags |= 2;
    if (g?.omitempty && !g.pointer) flags |= 4;
    if (g?.inline) flags |= 8;
    const type = f.map ? f.map.join(',') : f.type;
    for (const t of f.map ?? [f.type]) if (!SCALARS.has(t)) queue.push(t);
    return [f.num, g?.json || f.name, type, flags];
  });
}

const header = `// Generated by generate.ts from kubernetes/api and kubernetes/apimachinery ${tag}; do not edit.
// MESSAGES: message name → [field number, JSON name, type, flags (1 repeated, 2 map, 4 omitempty, 8 inline)].
// ROOTS: apiVersion/kind → message name.
`;
writeFileSync(
  new URL('./messages.generated.ts', import.meta.url),
  `${header}/** MESSAGES is the field table of every message reachable from ROOTS. */\nexport const MESSAGES: Record<string, [number, string, string, number][]> = ${JSON.stringify(table)};\n\n/** ROOTS maps apiVersion/kind to its message. */\nexport const ROOTS: Record<string, string> = ${JSON.stringify(ROOTS, null, 2)};\n`,
);
process.stderr.write(`${Object.keys(table).length} messages\n`);
