// builtin-types.gen: derives the type tree of the built-in kinds from @kubernetes/client-node's generated model
// metadata (attributeTypeMap: field, JSON name, type, format) plus the descriptions and optionality its .d.ts files
// carry. It runs only from builtin-types.test.ts (which checks the committed output and rewrites it with
// UPDATE_GOLDEN=1); the server reads the committed builtin-types.generated.ts and never loads client-node.
import * as models from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** GENERATED_ROOTS are the model classes whose type closure is recorded (the served kinds plus API plumbing). */
export const GENERATED_ROOTS = [
  'V1Namespace', 'V1ConfigMap', 'V1Secret', 'V1Service', 'V1Endpoints', 'V1EndpointSlice', 'V1Pod', 'V1Deployment',
  'V1ServiceAccount', 'V1Role', 'V1ClusterRole', 'V1RoleBinding', 'V1ClusterRoleBinding', 'V1NetworkPolicy',
  'V1Ingress', 'V1Lease', 'CoreV1Event', 'EventsV1Event', 'V1CustomResourceDefinition', 'V1Scale', 'V1Status',
  'V1DeleteOptions', 'V1ListMeta', 'V1ReplicaSet', 'V1IngressClass',
  // The rest of kube-apiserver 1.32's built-in kinds.
  'V1StatefulSet', 'V1DaemonSet', 'V1ControllerRevision', 'V1Job', 'V1CronJob', 'V2HorizontalPodAutoscaler',
  'V1HorizontalPodAutoscaler', 'V1PodDisruptionBudget', 'V1PersistentVolumeClaim', 'V1PersistentVolume', 'V1Node',
  'V1ResourceQuota', 'V1LimitRange', 'V1ReplicationController', 'V1PodTemplate', 'V1Binding', 'V1ComponentStatus',
  'V1StorageClass', 'V1CSIDriver', 'V1CSINode', 'V1CSIStorageCapacity', 'V1VolumeAttachment', 'V1PriorityClass',
  'V1RuntimeClass', 'V1ValidatingWebhookConfiguration', 'V1MutatingWebhookConfiguration', 'V1ValidatingAdmissionPolicy',
  'V1ValidatingAdmissionPolicyBinding', 'V1CertificateSigningRequest', 'V1FlowSchema', 'V1PriorityLevelConfiguration',
  'V1APIService', 'V1Eviction',
];

/** RawField is [jsonName, typeSpec, required (1) or not (0), description]. */
export type RawField = [string, string, 0 | 1, string];
/** RawType is one model class: its description and fields. */
export interface RawType {
  d: string;
  f: RawField[];
}

type Attr = { name: string; baseName: string; type: string; format: string };
type ModelClass = { attributeTypeMap?: Attr[] };
const registry = models as unknown as Record<string, ModelClass | undefined>;

// typeSpec turns a client-node type/format pair into our compact spec: scalars by name (string, string:byte,
// string:date-time, int32, int64, double, boolean, IntOrString, any), a class name, []T for arrays, {}T for maps.
function typeSpec(type: string, format: string): string {
  const arr = /^Array<(.+)>$/.exec(type);
  if (arr) return `[]${typeSpec(arr[1], format)}`;
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return `{}${typeSpec(map[1], format)}`;
  switch (type) {
    case 'string':
      return format === 'byte' ? 'string:byte' : format === 'date-time' ? 'string:date-time' : 'string';
    case 'Date':
    case 'V1MicroTime':
      return 'string:date-time';
    case 'number':
      return format === 'int32' || format === 'int64' || format === 'double' ? format : 'double';
    case 'boolean':
      return 'boolean';
    case 'IntOrString':
      return 'IntOrString';
    case 'any':
      return 'any';
    default:
      if (registry[type]?.attributeTypeMap) return type;
      throw new Error(`builtin-types.gen: unknown client-node type ${type} (${format})`);
  }
}

function classNames(spec: string): string[] {
  if (spec.startsWith('[]')) return classNames(spec.slice(2));
  if (spec.startsWith('{}')) return classNames(spec.slice(2));
  return /^[A-Z]/.test(spec) && spec !== 'IntOrString' ? [spec] : [];
}

// The .d.ts files hold the documentation: a class comment, then one comment per documented property, and a `?`
// after optional property names.
function readDeclarations(dir: string, cls: string): { d: string; props: Map<string, { d: string; optional: boolean }> } {
  const lines = readFileSync(join(dir, `${cls}.d.ts`), 'utf8').split('\n');
  const clean = (c: string[]) =>
    c
      .map((l) => l.replace(/^\s*\*\s?/, ''))
      .join('\n')
      .trim()
      .replace(/\\(['"\\])/g, '$1');
  let d = '';
  const props = new Map<string, { d: string; optional: boolean }>();
  let comment: string[] | undefined;
  let open: string[] | undefined;
  for (const line of lines) {
    const t = line.trim();
    if (open) {
      if (t === '*/') {
        comment = open;
        open = undefined;
      } else open.push(line);
      continue;
    }
    if (t === '/**') {
      open = [];
      continue;
    }
    if (t.startsWith('export declare class ')) d = comment ? clean(comment) : '';
    const prop = /^'([^']+)'(\??):/.exec(t);
    if (prop && line.startsWith('    ') && !line.startsWith('     ')) props.set(prop[1], { d: comment ? clean(comment) : '', optional: prop[2] === '?' });
    if (t !== '') comment = undefined;
  }
  return { d, props };
}

/** generateBuiltinTypes returns the source text of builtin-types.generated.ts. */
export function generateBuiltinTypes(): string {
  const require = createRequire(import.meta.url);
  const pkgDir = dirname(require.resolve('@kubernetes/client-node/package.json'));
  const version = (JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string }).version;
  const dir = join(pkgDir, 'dist', 'gen', 'models');
  const out: Record<string, RawType> = {};
  const queue = [...GENERATED_ROOTS];
  while (queue.length > 0) {
    const cls = queue.shift()!;
    if (out[cls]) continue;
    const attrs = registry[cls]?.attributeTypeMap;
    if (!attrs) throw new Error(`builtin-types.gen: client-node has no model ${cls}`);
    const decl = readDeclarations(dir, cls);
    const fields: RawField[] = [];
    for (const a of attrs) {
      const spec = typeSpec(a.type, a.format);
      const p = decl.props.get(a.name);
      fields.push([a.baseName, spec, p && !p.optional ? 1 : 0, p?.d ?? '']);
      queue.push(...classNames(spec));
    }
    out[cls] = { d: decl.d, f: fields };
  }
  const sorted = Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]]));
  return [
    `// Generated by builtin-types.gen.ts from @kubernetes/client-node ${version} model metadata (field names, types,`,
    `// optionality, descriptions). Do not edit: regenerate with UPDATE_GOLDEN=1 npm test -- builtin-types`,
    `/** BUILTIN_TYPES_JSON is the JSON text of Record<className, { d: description, f: [jsonName, typeSpec, required, description][] }>. */`,
    `export const BUILTIN_TYPES_JSON: string = ${JSON.stringify(JSON.stringify(sorted))};`,
    '',
  ].join('\n');
}
