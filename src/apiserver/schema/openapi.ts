// OpenAPI documents built from the served resources, shaped like kube-apiserver's so kubectl 1.32 can use them:
// - v3 (/openapi/v3 and /openapi/v3/<api|apis/group>/<version>): `kubectl explain` finds a kind by the
//   x-kubernetes-group-version-kind of components.schemas; client-side apply computes strategic merge patches
//   from the x-kubernetes-patch-* extensions there when the PATCH operation lists
//   application/strategic-merge-patch+json (built-ins only); `--validate=strict` sends fieldValidation to the
//   server once the PATCH operation of the kind declares the fieldValidation query parameter.
// - v2 (/openapi/v2): the same definitions in Swagger 2.0 form (kubectl requests it as protobuf only as a
//   fallback; JSON clients can read this one).
// Go: k8s.io/kube-openapi pkg/builder3, pkg/handler3 (root document), apiextensions-apiserver
// pkg/controller/openapi/builder (CRD definitions), k8s.io/kubectl pkg/cmd/apply/patcher.go and
// k8s.io/cli-runtime pkg/resource/query_param_verifier_v3.go (what kubectl reads).
import { builtinDefinitions, builtinKind, definitionName } from './builtin.js';
import { cloneJSON, isObject, type JSONObject } from './json.js';
import type { JSONSchemaProps, ServedResource } from './types.js';

const KUBE_VERSION = 'v1.32.0';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const OBJECT_META = `${META}.ObjectMeta`;
const LIST_META = `${META}.ListMeta`;
const PATCH = `${META}.Patch`;
const STATUS = `${META}.Status`;
const DELETE_OPTIONS = `${META}.DeleteOptions`;
const SCALE = 'io.k8s.api.autoscaling.v1.Scale';

const PATCH_TYPES_ALL = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];
const PATCH_TYPES_CUSTOM = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json'];

type Version = 2 | 3;

/** groupVersionPath is the discovery path of a group-version: "api/v1" or "apis/apps/v1". */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

// parseGroupVersion accepts "api/v1", "apis/apps/v1", "apps/v1" or "v1".
function parseGroupVersion(gv: string): { group: string; version: string } {
  const s = gv.replace(/^\/+/, '');
  if (s.startsWith('api/')) return { group: '', version: s.slice(4) };
  if (s.startsWith('apis/')) {
    const rest = s.slice(5).split('/');
    return { group: rest[0], version: rest[1] ?? '' };
  }
  const parts = s.split('/');
  return parts.length === 1 ? { group: '', version: parts[0] } : { group: parts[0], version: parts[1] };
}

// definitionNameFor names a kind's schema: built-ins by their Go package, custom kinds by reversed group (upstream).
function definitionNameFor(r: ServedResource): string {
  const b = builtinKind(r.group, r.version, r.kind);
  if (b) return definitionName(b.cls);
  return `${r.group.split('.').reverse().join('.')}.${r.version}.${r.kind}`;
}

const nameCache = new Map<string, string>();
function defName(r: ServedResource): string {
  const key = `${r.group}/${r.version}/${r.kind}`;
  let n = nameCache.get(key);
  if (!n) {
    n = definitionNameFor(r);
    nameCache.set(key, n);
  }
  return n;
}

// customSchema turns a CRD's structural schema into its published definition: apiVersion, kind and metadata
// (as ObjectMeta) are always there, and v2 drops what Swagger 2.0 cannot say.
function customSchema(r: ServedResource, ref: (n: string) => string, v: Version): JSONSchemaProps {
  const s = cloneJSON(r.schema ?? { type: 'object' }) as JSONSchemaProps;
  s.type = 'object';
  s.properties = {
    apiVersion: {
      description:
        'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
      type: 'string',
    },
    kind: {
      description:
        'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
      type: 'string',
    },
    metadata: withDescription(
      { $ref: ref(OBJECT_META) },
      "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
      v,
    ),
    ...Object.fromEntries(Object.entries(s.properties ?? {}).filter(([k]) => k !== 'apiVersion' && k !== 'kind' && k !== 'metadata')),
  };
  s['x-kubernetes-group-version-kind'] = [{ group: r.group, version: r.version, kind: r.kind }];
  return v === 2 ? toV2(s) : s;
}

function withDescription(refNode: JSONSchemaProps, description: string, v: Version): JSONSchemaProps {
  return v === 3 ? { allOf: [refNode], description } : { ...refNode, description };
}

// toV2 removes OpenAPI v3 constructs Swagger 2.0 has no place for (Go: builder/openapiv2 conversion).
function toV2(s: JSONSchemaProps): JSONSchemaProps {
  const walk = (n: unknown): void => {
    if (!isObject(n)) return;
    const node = n as JSONObject;
    delete node.nullable;
    delete node.anyOf;
    delete node.oneOf;
    delete node.not;
    if (isObject(node.properties)) for (const c of Object.values(node.properties)) walk(c);
    if (isObject(node.items)) walk(node.items);
    if (isObject(node.additionalProperties)) walk(node.additionalProperties);
    if (Array.isArray(node.allOf)) for (const c of node.allOf) walk(c);
  };
  walk(s);
  return s;
}

function listSchema(r: ServedResource, itemName: string, ref: (n: string) => string, v: Version): JSONSchemaProps {
  return {
    description: `${r.kind}List is a list of ${r.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { description: 'APIVersion defines the versioned schema of this representation of an object.', type: 'string' },
      items: { description: `List of ${r.plural}.`, type: 'array', items: { $ref: ref(itemName) } },
      kind: { description: 'Kind is a string value representing the REST resource this object represents.', type: 'string' },
      metadata: withDescription({ $ref: ref(LIST_META) }, 'Standard list metadata.', v),
    },
    'x-kubernetes-group-version-kind': [{ group: r.group, version: r.version, kind: `${r.kind}List` }],
  };
}

// definitions collects every schema the resources need: kinds (built-in closures or CRD schemas), their Lists,
// and the meta types the operations reference.
function definitions(resources: ServedResource[], v: Version): Record<string, JSONSchemaProps> {
  const prefix = v === 3 ? '#/components/schemas/' : '#/definitions/';
  const ref = (n: string) => `${prefix}${n}`;
  const builtins = resources.map((r) => builtinKind(r.group, r.version, r.kind)).filter((b) => b !== undefined);
  const needScale = resources.some((r) => r.subresources.includes('scale'));
  const defs: Record<string, JSONSchemaProps> = builtinDefinitions(builtins, prefix, {
    v3: v === 3,
    classes: ['V1ObjectMeta', 'V1ListMeta', 'V1Status', 'V1DeleteOptions', ...(needScale ? ['V1Scale'] : [])],
  });
  for (const r of resources) {
    const name = defName(r);
    if (!builtinKind(r.group, r.version, r.kind)) defs[name] = customSchema(r, ref, v);
    defs[`${name}List`] = listSchema(r, name, ref, v);
  }
  defs[PATCH] = { description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.', type: 'object' };
  return defs;
}

// ---- paths ----

interface Op {
  verb: 'get' | 'put' | 'post' | 'patch' | 'delete';
  action: string;
  idVerb: string;
  description: string;
  body?: string;
  patchTypes?: string[];
  response: string;
  params: string[];
}

function groupIdPart(group: string): string {
  if (group === '') return 'Core';
  const g = group.replace(/\.k8s\.io$/, '').replace(/\.authorization$/, 'Authorization');
  return g
    .split(/[.-]/)
    .filter((x) => x !== '')
    .map((x) => x[0].toUpperCase() + x.slice(1))
    .join('');
}

const QUERY_PARAMS: Record<string, { description: string; type: string }> = {
  pretty: { description: "If 'true', then the output is pretty printed.", type: 'string' },
  dryRun: { description: 'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed', type: 'string' },
  fieldManager: { description: 'fieldManager is a name associated with the actor or entity that is making these changes.', type: 'string' },
  fieldValidation: {
    description:
      'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict (the default in v1.23+).',
    type: 'string',
  },
  force: { description: 'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people.', type: 'boolean' },
  labelSelector: { description: 'A selector to restrict the list of returned objects by their labels. Defaults to everything.', type: 'string' },
  fieldSelector: { description: 'A selector to restrict the list of returned objects by their fields. Defaults to everything.', type: 'string' },
  limit: { description: 'limit is a maximum number of responses to return for a list call.', type: 'integer' },
  continue: { description: 'The continue option should be set when retrieving more results from the server.', type: 'string' },
  resourceVersion: { description: 'resourceVersion sets a constraint on what resource versions a request may be served from.', type: 'string' },
  watch: { description: 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.', type: 'boolean' },
  allowWatchBookmarks: { description: 'allowWatchBookmarks requests watch events with type "BOOKMARK".', type: 'boolean' },
  timeoutSeconds: { description: 'Timeout for the list/watch call.', type: 'integer' },
  gracePeriodSeconds: { description: 'The duration in seconds before the object should be deleted.', type: 'integer' },
  propagationPolicy: { description: "Whether and how garbage collection will be performed. Acceptable values are: 'Orphan', 'Background', 'Foreground'.", type: 'string' },
};

function param(name: string, v: Version): JSONObject {
  const p = QUERY_PARAMS[name];
  return v === 3
    ? { name, in: 'query', description: p.description, schema: { type: p.type, uniqueItems: true } }
    : { name, in: 'query', description: p.description, type: p.type, uniqueItems: true };
}

function pathParam(name: string, description: string, v: Version): JSONObject {
  return v === 3
    ? { name, in: 'path', description, required: true, schema: { type: 'string', uniqueItems: true } }
    : { name, in: 'path', description, required: true, type: 'string', uniqueItems: true };
}

function operation(op: Op, gvk: JSONObject, tag: string, opId: string, ref: (n: string) => string, v: Version): JSONObject {
  const out: JSONObject = { tags: [tag], description: op.description, operationId: opId };
  const params: JSONObject[] = op.params.map((p) => param(p, v));
  if (v === 3) {
    if (op.body) {
      const content: JSONObject = {};
      for (const t of op.patchTypes ?? ['*/*']) content[t] = { schema: { $ref: ref(op.body) } };
      out.requestBody = { content, required: true };
    }
    if (params.length > 0) out.parameters = params;
    out.responses = {
      '200': { description: 'OK', content: { 'application/json': { schema: { $ref: ref(op.response) } }, 'application/yaml': { schema: { $ref: ref(op.response) } } } },
      '401': { description: 'Unauthorized' },
    };
  } else {
    if (op.body) params.unshift({ name: 'body', in: 'body', required: true, schema: { $ref: ref(op.body) } });
    if (op.patchTypes) out.consumes = op.patchTypes;
    else out.consumes = ['*/*'];
    out.produces = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
    out.schemes = ['https'];
    if (params.length > 0) out.parameters = params;
    out.responses = { '200': { description: 'OK', schema: { $ref: ref(op.response) } }, '401': { description: 'Unauthorized' } };
  }
  out['x-kubernetes-action'] = op.action;
  out['x-kubernetes-group-version-kind'] = gvk;
  return out;
}

function paths(resources: ServedResource[], v: Version): JSONObject {
  const prefix = v === 3 ? '#/components/schemas/' : '#/definitions/';
  const ref = (n: string) => `${prefix}${n}`;
  const out: JSONObject = {};
  for (const r of resources) {
    const name = defName(r);
    const builtin = builtinKind(r.group, r.version, r.kind) !== undefined;
    const patchTypes = builtin ? PATCH_TYPES_ALL : PATCH_TYPES_CUSTOM;
    const base = `/${groupVersionPath(r.group, r.version)}`;
    const coll = r.namespaced ? `${base}/namespaces/{namespace}/${r.plural}` : `${base}/${r.plural}`;
    const item = `${coll}/{name}`;
    const gvk = { group: r.group, version: r.version, kind: r.kind };
    const tag = `${r.group === '' ? 'core' : r.group.replace(/\.k8s\.io$/, '').replace(/\./g, '_')}_${r.version}`;
    const idBase = `${groupIdPart(r.group)}${r.version[0].toUpperCase()}${r.version.slice(1)}${r.namespaced ? 'Namespaced' : ''}${r.kind}`;
    const has = (verb: string) => r.verbs.includes(verb);
    const nsParam = r.namespaced ? [pathParam('namespace', 'object name and auth scope, such as for teams and projects', v)] : [];
    const write = ['dryRun', 'fieldManager', 'fieldValidation'];

    const collOps: JSONObject = {};
    if (has('list')) {
      collOps.get = operation({ verb: 'get', action: 'list', idVerb: 'list', description: `list or watch objects of kind ${r.kind}`, response: `${name}List`, params: ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'timeoutSeconds', 'watch'] }, gvk, tag, `list${idBase}`, ref, v);
    }
    if (has('create')) {
      collOps.post = operation({ verb: 'post', action: 'post', idVerb: 'create', description: `create a ${r.kind}`, body: name, response: name, params: write }, gvk, tag, `create${idBase}`, ref, v);
    }
    if (has('deletecollection')) {
      collOps.delete = operation({ verb: 'delete', action: 'deletecollection', idVerb: 'deletecollection', description: `delete collection of ${r.kind}`, response: STATUS, params: ['dryRun', 'gracePeriodSeconds', 'labelSelector', 'fieldSelector', 'propagationPolicy'] }, gvk, tag, `deletecollection${idBase}`, ref, v);
    }
    if (Object.keys(collOps).length > 0) out[coll] = { ...collOps, parameters: [...nsParam, param('pretty', v)] };

    const itemOps: JSONObject = {};
    if (has('get')) itemOps.get = operation({ verb: 'get', action: 'get', idVerb: 'read', description: `read the specified ${r.kind}`, response: name, params: [] }, gvk, tag, `read${idBase}`, ref, v);
    if (has('update')) itemOps.put = operation({ verb: 'put', action: 'put', idVerb: 'replace', description: `replace the specified ${r.kind}`, body: name, response: name, params: write }, gvk, tag, `replace${idBase}`, ref, v);
    if (has('patch')) {
      itemOps.patch = operation({ verb: 'patch', action: 'patch', idVerb: 'patch', description: `partially update the specified ${r.kind}`, body: PATCH, patchTypes, response: name, params: [...write, 'force'] }, gvk, tag, `patch${idBase}`, ref, v);
    }
    if (has('delete')) {
      itemOps.delete = operation({ verb: 'delete', action: 'delete', idVerb: 'delete', description: `delete a ${r.kind}`, body: DELETE_OPTIONS, response: STATUS, params: ['dryRun', 'gracePeriodSeconds', 'propagationPolicy'] }, gvk, tag, `delete${idBase}`, ref, v);
    }
    if (Object.keys(itemOps).length > 0) out[item] = { ...itemOps, parameters: [pathParam('name', `name of the ${r.kind}`, v), ...nsParam, param('pretty', v)] };

    if (r.namespaced && has('list')) {
      out[`${base}/${r.plural}`] = {
        get: operation({ verb: 'get', action: 'list', idVerb: 'list', description: `list or watch objects of kind ${r.kind}`, response: `${name}List`, params: ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'timeoutSeconds', 'watch'] }, gvk, tag, `list${idBase.replace('Namespaced', '')}ForAllNamespaces`, ref, v),
        parameters: [param('pretty', v)],
      };
    }
    for (const sub of r.subresources) {
      const subName = sub === 'scale' ? SCALE : name;
      const subGvk = sub === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : gvk;
      const title = sub[0].toUpperCase() + sub.slice(1);
      out[`${item}/${sub}`] = {
        get: operation({ verb: 'get', action: 'get', idVerb: 'read', description: `read ${sub} of the specified ${r.kind}`, response: subName, params: [] }, subGvk, tag, `read${idBase}${title}`, ref, v),
        put: operation({ verb: 'put', action: 'put', idVerb: 'replace', description: `replace ${sub} of the specified ${r.kind}`, body: subName, response: subName, params: write }, subGvk, tag, `replace${idBase}${title}`, ref, v),
        patch: operation({ verb: 'patch', action: 'patch', idVerb: 'patch', description: `partially update ${sub} of the specified ${r.kind}`, body: PATCH, patchTypes, response: subName, params: [...write, 'force'] }, subGvk, tag, `patch${idBase}${title}`, ref, v),
        parameters: [pathParam('name', `name of the ${r.kind}`, v), ...nsParam, param('pretty', v)],
      };
    }
  }
  return out;
}

const SECURITY_V2 = { securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' } }, security: [{ BearerToken: [] }] };

/** openAPIV2 builds the Swagger 2.0 document served at /openapi/v2 (JSON). */
export function openAPIV2(resources: ServedResource[]): object {
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: KUBE_VERSION },
    paths: paths(resources, 2),
    definitions: definitions(resources, 2),
    ...SECURITY_V2,
  };
}

/**
 * openAPIV3Root builds the /openapi/v3 discovery document: one entry per group-version, pointing at
 * `<urlPrefix>/openapi/v3/<api/v1|apis/g/v>?hash=<hashOf(path)>`. client-go requests serverRelativeURL as an
 * absolute path, so a server mounted under a prefix (/clusters/NAME) must pass it as urlPrefix.
 */
export function openAPIV3Root(resources: ServedResource[], hashOf: (gv: string) => string, urlPrefix = ''): object {
  const gvs = [...new Set(resources.map((r) => groupVersionPath(r.group, r.version)))].sort();
  const out: JSONObject = {};
  for (const gv of gvs) out[gv] = { serverRelativeURL: `${urlPrefix}/openapi/v3/${gv}?hash=${hashOf(gv)}` };
  return { paths: out };
}

/** openAPIV3GroupVersion builds the OpenAPI 3.0 document of one group-version ("api/v1", "apis/apps/v1" or "apps/v1"). */
export function openAPIV3GroupVersion(resources: ServedResource[], groupVersion: string): object {
  const { group, version } = parseGroupVersion(groupVersion);
  const mine = resources.filter((r) => r.group === group && r.version === version);
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBE_VERSION },
    paths: paths(mine, 3),
    components: {
      schemas: definitions(mine, 3),
      securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
    },
    security: [{ BearerToken: [] }],
  };
}

