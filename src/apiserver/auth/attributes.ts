// Request attributes as kube-apiserver derives them from the method and path, and the Forbidden answer it gives
// when the authorizer says no. Go: k8s.io/apiserver pkg/endpoints/request/requestinfo.go,
// pkg/endpoints/handlers/responsewriters/errors.go (forbiddenMessage), apimachinery errors.NewForbidden
import { parseRequestInfo } from '../http.js';
import { goQuote, StatusError, type Status } from '../status.js';
import { isValidPathSegmentName } from '../validation.js';
import type { Attributes, UserInfo } from './rules.js';

/** requestAttributes computes what the authorizer decides on for one request (path below the cluster prefix). */
export function requestAttributes(user: UserInfo, method: string, path: string, url: URL): Attributes {
  let info;
  try {
    info = parseRequestInfo(path);
  } catch {
    info = undefined;
  }
  if (!info || !info.isResource) {
    return { user, verb: method.toLowerCase(), resourceRequest: false, apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '', namespace: '', path };
  }
  let verb: string;
  switch (method) {
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = 'delete';
      break;
    default:
      verb = 'get';
  }
  let name = info.name;
  let namespace = info.namespace;
  // Go: /api/v1/namespaces/x is resource namespaces, name x, in the namespace x.
  if (info.resource === 'namespaces' && info.name && !info.namespace) namespace = info.name;
  if (info.legacyWatch) verb = 'watch';
  else if (!name && verb === 'delete') verb = 'deletecollection';
  else if (!name && verb === 'get') {
    const w = url.searchParams.get('watch');
    verb = w === 'true' || w === '1' ? 'watch' : 'list';
  }
  if ((verb === 'list' || verb === 'watch') && !name) {
    // Go: a list or watch narrowed to one name by metadata.name=X is about that name.
    const fs = url.searchParams.get('fieldSelector');
    if (fs) {
      for (const term of fs.split(',')) {
        const m = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(term);
        if (m && isValidPathSegmentName(m[1]).length === 0) name = m[1];
      }
    }
  }
  return { user, verb, resourceRequest: true, apiGroup: info.group, apiVersion: info.version, resource: info.resource, subresource: info.subresource, name, namespace, path };
}

/** forbiddenMessage is what kube says a user cannot do. */
export function forbiddenMessage(a: Attributes): string {
  const user = a.user.username;
  if (!a.resourceRequest) return `User ${goQuote(user)} cannot ${a.verb} path ${goQuote(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (a.namespace) return `User ${goQuote(user)} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)} in the namespace ${goQuote(a.namespace)}`;
  return `User ${goQuote(user)} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)} at the cluster scope`;
}

/** forbiddenStatus is the 403 of apierrors.NewForbidden for a group/resource and name. */
export function forbiddenStatus(group: string, resource: string, name: string, why: string): StatusError {
  let message: string;
  if (!group && !resource) message = `forbidden: ${why}`;
  else {
    const gr = group ? `${resource}.${group}` : resource;
    message = name ? `${gr} ${goQuote(name)} is forbidden: ${why}` : `${gr} is forbidden: ${why}`;
  }
  const details: Record<string, string> = {};
  if (name) details.name = name;
  if (group) details.group = group;
  if (resource) details.kind = resource;
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 };
  return new StatusError(status as unknown as Status);
}

/** forbiddenError is the answer to a request the authorizer denied. */
export function forbiddenError(a: Attributes, reason: string): StatusError {
  const msg = forbiddenMessage(a);
  return forbiddenStatus(a.apiGroup, a.resource, a.name, reason ? `${msg}: ${reason}` : msg);
}
