// execute.ts: runs a deployment plan against the target clusters — the only place the deployer writes to them.
// Server-side apply with a stable field manager and force (as Sveltos), an optimistic lock on the resourceVersion
// the ownership decision was made on, subresource applies after the main apply, delete+recreate for `force` on
// invalid/immutable updates, server dry-run for DryRun. Per-object failures become results (continueOnError /
// continueOnConflict decide whether to go on); an unreachable cluster aborts the whole run (the caller retries).
// Go: libsveltos lib/deployer/applier.go UpdateResource, applySubresources, recreateResource, CreateNamespace
import {
  isAlreadyExists,
  isConflict,
  isInvalid,
  isKindNotInstalled,
  isNotFound,
  isStatusError,
  isUnreachable,
  sleep,
  type KubeClient,
  type KubeObject,
  type ObjectRef,
} from '../kube/index.js';
import { Labels } from '../api/index.js';
import { unifiedDiff } from './diff.js';
import { ADOPTED_ANNOTATION } from './names.js';
import { STAMP_ANNOTATIONS } from './stamp.js';
import { groupOf, type Action, type ObjectIdentity, type Target } from './plan.js';

/** ReportAction is a ClusterReport action (Sveltos' ResourceReport actions). */
export type ReportAction = 'No Action' | 'Create' | 'Update' | 'Delete' | 'Conflict' | 'Error';

/** ObjectResult is what happened (or, in DryRun, would happen) to one object. */
export interface ObjectResult {
  id: ObjectIdentity;
  action: ReportAction;
  message?: string;
  /** True when the cluster was written (not for DryRun, unchanged objects, conflicts or errors). */
  wrote: boolean;
  /** For applies: what the server returned (resourceVersion, for drift bookkeeping). */
  result?: KubeObject;
  /** The body applied (or found intact): what the deployer now knows it wrote. */
  applied?: KubeObject;
}

/** ExecuteOptions tunes one run. */
export interface ExecuteOptions {
  fieldManager: string;
  dryRun: boolean;
  continueOnConflict: boolean;
  continueOnError: boolean;
  signal?: AbortSignal;
  /** How long to wait for a kind defined by a CRD applied in the same run to be served (default 5 s). */
  crdWaitMs?: number;
}

/** ExecuteOutcome summarises a run. */
export interface ExecuteOutcome {
  results: ObjectResult[];
  conflicts: string[];
  errors: string[];
  /** True when a conflict or error stopped the run before the end (stale objects were then left alone). */
  stopped: boolean;
  /** Objects written (applies, deletes, releases, strips, namespaces). */
  writes: number;
}

/** RetryableError aborts a run that must be retried as a whole (a concurrent writer changed an object under us). */
export class RetryableError extends Error {
  override readonly name = 'RetryableError';
}

/** refOf turns an identity into a client ObjectRef. */
export function refOf(id: ObjectIdentity): ObjectRef {
  return { apiVersion: id.apiVersion, kind: id.kind, namespace: id.namespace, name: id.name };
}

/** describe names an object in messages the way Sveltos does: `Kind namespace/name`. */
export function describe(id: ObjectIdentity): string {
  return `${id.kind} ${id.namespace ? `${id.namespace}/` : ''}${id.name}`;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** isObjectError is true for failures that concern one object (the API server refused it), not the connection. */
function isObjectError(err: unknown): boolean {
  if (isKindNotInstalled(err)) return true;
  return isStatusError(err) && err.code >= 400 && err.code < 500 && err.code !== 429 && err.code !== 401;
}

/** withoutResourceVersion drops metadata.resourceVersion (subresource applies, recreation). */
function withoutResourceVersion(o: KubeObject): KubeObject {
  if (o.metadata.resourceVersion === undefined) return o;
  const { resourceVersion: _rv, ...metadata } = o.metadata;
  return { ...o, metadata };
}

/**
 * execute runs the actions in order against the Local (management) or Remote (managed) client. Conflicts and
 * object errors are recorded; without continueOnConflict / continueOnError the run stops at the first one and stale
 * objects are not removed (withdrawal needs a fully successful deployment as evidence).
 */
export async function execute(actions: readonly Action[], targets: Readonly<Record<Target, KubeClient | undefined>>, opts: ExecuteOptions): Promise<ExecuteOutcome> {
  const out: ExecuteOutcome = { results: [], conflicts: [], errors: [], stopped: false, writes: 0 };
  const crdKinds = new Set<string>();
  const client = (t: Target): KubeClient => {
    const c = targets[t];
    if (!c) throw new Error(`no client for the ${t === 'Local' ? 'management' : 'managed'} cluster`);
    return c;
  };
  const fail = (id: ObjectIdentity, message: string): boolean => {
    out.errors.push(message);
    out.results.push({ id, action: 'Error', message, wrote: false });
    return !opts.continueOnError;
  };
  for (const action of actions) {
    opts.signal?.throwIfAborted();
    if (out.stopped && (action.type === 'delete' || action.type === 'release')) break;
    switch (action.type) {
      case 'createNamespace': {
        if (opts.dryRun) break;
        try {
          await client(action.target).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: action.name } });
          out.writes++;
        } catch (err) {
          if (isAlreadyExists(err)) break;
          if (!isObjectError(err)) throw err;
          const id: ObjectIdentity = { target: action.target, apiVersion: 'v1', kind: 'Namespace', name: action.name };
          if (fail(id, `creating namespace ${action.name}: ${errorText(err)}`)) out.stopped = true;
        }
        break;
      }
      case 'unchanged':
        out.results.push({
          id: action.id,
          action: 'No Action',
          message: 'Object already deployed. And policy referenced by ClusterProfile has not changed since last deployment.',
          wrote: false,
          applied: action.object,
          result: action.resourceVersion ? ({ ...action.object, metadata: { ...action.object.metadata, resourceVersion: action.resourceVersion } } as KubeObject) : undefined,
        });
        break;
      case 'conflict':
        out.conflicts.push(action.message);
        out.results.push({ id: action.id, action: 'Conflict', message: action.message, wrote: false });
        if (!opts.dryRun && !opts.continueOnConflict) out.stopped = true;
        break;
      case 'apply': {
        const c = client(action.id.target);
        const body: KubeObject =
          action.op === 'update' && action.resourceVersion && !opts.dryRun
            ? { ...action.object, metadata: { ...action.object.metadata, resourceVersion: action.resourceVersion } }
            : withoutResourceVersion(action.object);
        let result: KubeObject | undefined;
        try {
          result = await applyWithCrdWait(c, body, action.id, crdKinds, opts);
          for (const sub of action.subresources) {
            try {
              await c.apply(withoutResourceVersion(action.object), { fieldManager: opts.fieldManager, force: true, subresource: sub, dryRun: opts.dryRun });
            } catch (err) {
              // Go: in DryRun a missing object (it would be created first) is not an error.
              if (opts.dryRun && isNotFound(err)) continue;
              throw err;
            }
          }
        } catch (err) {
          if ((isConflict(err) && body.metadata.resourceVersion !== undefined) || (action.optimistic && isObjectError(err))) {
            throw new RetryableError(`${describe(action.id)} changed while it was being deployed; retrying`, { cause: err });
          }
          if (opts.dryRun && isNotFound(err)) {
            // Go: UpdateResource — in DryRun a missing namespace means the object would be created.
            out.results.push({ id: action.id, action: action.op === 'create' ? 'Create' : 'Update', wrote: false });
            break;
          }
          if (!opts.dryRun && isInvalid(err) && action.forceRecreate && action.op === 'update' && action.id.kind !== 'CustomResourceDefinition') {
            try {
              result = await recreate(c, action, opts);
            } catch (err2) {
              if (!isObjectError(err2)) throw err2;
              if (fail(action.id, `deploying ${describe(action.id)} failed: ${errorText(err2)}`)) out.stopped = true;
              break;
            }
          } else {
            if (!isObjectError(err)) throw err;
            if (fail(action.id, `deploying ${describe(action.id)} failed: ${errorText(err)}`)) out.stopped = true;
            break;
          }
        }
        if (action.id.kind === 'CustomResourceDefinition' && groupOf(action.id.apiVersion) === 'apiextensions.k8s.io') {
          const spec = (action.object.spec ?? {}) as { group?: string; names?: { kind?: string } };
          if (spec.group && spec.names?.kind) crdKinds.add(`${spec.group}/${spec.names.kind}`);
        }
        if (!opts.dryRun) out.writes++;
        out.results.push({
          id: action.id,
          action: action.op === 'create' ? 'Create' : 'Update',
          message: opts.dryRun && action.op === 'update' && action.current ? unifiedDiff(action.current, result ?? action.object, describe(action.id)) : undefined,
          wrote: !opts.dryRun,
          result,
          applied: action.object,
        });
        break;
      }
      case 'delete':
      case 'release': {
        const c = client(action.id.target);
        try {
          if (action.type === 'delete') {
            await c.delete(refOf(action.id), { propagationPolicy: 'Background', preconditions: action.uid ? { uid: action.uid } : undefined, dryRun: opts.dryRun });
          } else {
            await release(c, action.id, action.subresources, opts);
          }
          if (!opts.dryRun) out.writes++;
          out.results.push({ id: action.id, action: 'Delete', wrote: !opts.dryRun });
        } catch (err) {
          // Already gone (or replaced by a new object with another uid): nothing of ours to remove.
          if (isNotFound(err) || (isConflict(err) && action.type === 'delete')) {
            out.results.push({ id: action.id, action: 'Delete', wrote: false });
            break;
          }
          if (!isObjectError(err)) throw err;
          if (fail(action.id, `removing ${describe(action.id)} failed: ${errorText(err)}`)) out.stopped = true;
        }
        break;
      }
      case 'strip': {
        const c = client(action.id.target);
        if (opts.dryRun || (action.annotations.length === 0 && action.labels.length === 0)) break;
        const nulls = (keys: readonly string[]) => (keys.length ? Object.fromEntries(keys.map((k) => [k, null])) : undefined);
        try {
          await c.patch(refOf(action.id), 'merge', { metadata: { annotations: nulls(action.annotations), labels: nulls(action.labels) } }, { fieldManager: opts.fieldManager });
          out.writes++;
          out.results.push({ id: action.id, action: 'Delete', message: 'left in place (LeavePolicies); Sveltos stamps removed', wrote: true });
        } catch (err) {
          if (isNotFound(err)) break;
          if (!isObjectError(err)) throw err;
          if (fail(action.id, `removing the stamps of ${describe(action.id)} failed: ${errorText(err)}`)) out.stopped = true;
        }
        break;
      }
    }
    if (out.stopped && !opts.dryRun) {
      // Keep going only through what cannot hurt: nothing. The caller reports what stopped the run.
      break;
    }
  }
  return out;
}

/** applyWithCrdWait applies, waiting briefly for a kind whose CRD this run just applied to be served. */
async function applyWithCrdWait(c: KubeClient, body: KubeObject, id: ObjectIdentity, crdKinds: ReadonlySet<string>, opts: ExecuteOptions): Promise<KubeObject> {
  const deadline = performance.now() + (opts.crdWaitMs ?? 5000);
  let delay = 20;
  for (;;) {
    try {
      return await c.apply<KubeObject>(body, { fieldManager: opts.fieldManager, force: true, dryRun: opts.dryRun });
    } catch (err) {
      const waiting = isKindNotInstalled(err) && crdKinds.has(`${groupOf(id.apiVersion)}/${id.kind}`) && performance.now() < deadline;
      if (!waiting) throw err;
      c.discovery.invalidate(id.apiVersion);
      await sleep(delay, opts.signal);
      delay = Math.min(delay * 2, 500);
    }
  }
}

/** recreate deletes the object, waits until it is gone and applies it again. Go: recreateResource */
async function recreate(c: KubeClient, action: Extract<Action, { type: 'apply' }>, opts: ExecuteOptions): Promise<KubeObject> {
  const ref = refOf(action.id);
  try {
    await c.delete(ref, { propagationPolicy: 'Background' });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const deadline = performance.now() + 60_000;
  let delay = 20;
  while ((await c.getIfExists(ref)) !== undefined) {
    if (performance.now() > deadline) throw new Error(`${describe(action.id)} was not deleted within a minute; cannot recreate it`);
    await sleep(delay, opts.signal);
    delay = Math.min(delay * 2, 1000);
  }
  const out = await c.apply<KubeObject>(withoutResourceVersion(action.object), { fieldManager: opts.fieldManager, force: true });
  for (const sub of action.subresources) await c.apply(withoutResourceVersion(action.object), { fieldManager: opts.fieldManager, force: true, subresource: sub });
  return out;
}

/**
 * release gives up an adopted object: applying an identity-only configuration removes every field this field
 * manager owns (our stamps, and whatever of the content nobody else also set), on the object and on each
 * subresource we applied. The object itself stays.
 */
async function release(c: KubeClient, id: ObjectIdentity, subresources: readonly string[], opts: ExecuteOptions): Promise<void> {
  const identity: KubeObject = { apiVersion: id.apiVersion, kind: id.kind, metadata: { name: id.name, ...(id.namespace ? { namespace: id.namespace } : {}) } };
  try {
    for (const sub of subresources) {
      await c.apply(identity, { fieldManager: opts.fieldManager, subresource: sub, dryRun: opts.dryRun });
    }
    await c.apply(identity, { fieldManager: opts.fieldManager, dryRun: opts.dryRun });
  } catch (err) {
    // Giving up a field the object cannot live without (we had taken it over from its author): keep the content,
    // remove only our stamps.
    if (!isInvalid(err)) throw err;
    const nulls = Object.fromEntries([...STAMP_ANNOTATIONS, ADOPTED_ANNOTATION].map((k) => [k, null]));
    await c.patch(refOf(id), 'merge', { metadata: { annotations: nulls, labels: { [Labels.reason]: null } } }, { fieldManager: opts.fieldManager, dryRun: opts.dryRun });
  }
}

/** isTransient is true for errors worth retrying later with backoff (unreachable cluster, 5xx, throttling). */
export function isTransient(err: unknown): boolean {
  return isUnreachable(err) || (isStatusError(err) && (err.code >= 500 || err.code === 429)) || err instanceof RetryableError;
}
