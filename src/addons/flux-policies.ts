// flux-policies.ts: policyRefs of kind GitRepository / OCIRepository / Bucket for the Resources feature. Before the
// (pure, synchronous) policyRef resolution, the Flux sources a ClusterSummary names are looked up in on-demand
// informers (their changes — a new artifact revision — re-queue it) and their artifacts downloaded and verified
// (flux-source.ts); resolvePolicyRefs then reads the files under each ref's `path` from memory, as Sveltos'
// deployContentOfSource does (every file below the path; the source annotated `projectsveltos.io/template` makes
// them templates). Go: addon-controller controllers/handlers_resources.go deployContentOfSource, readFiles
import type { ClusterProfileSpec } from '../api/index.js';
import type { FuncOptions } from '../funcs/index.js';
import type { InformerFactory, KubeObject } from '../kube/index.js';
import type { FeatureFailure, FluxPolicyLookup } from './desired.js';
import { ArtifactError, artifactOf, FLUX_SOURCE_VERSIONS, isFluxKind, type ArtifactFetcher } from './flux-source.js';
import { KindWatcher, ReferenceIndex, refKey, type RefEntry } from './refs.js';
import { renderReferenceName, type ClusterNames } from './render.js';

type Answer = NonNullable<ReturnType<FluxPolicyLookup>>;

const texts = new WeakMap<Map<string, Uint8Array>, Map<string, string>>();
function asText(files: Map<string, Uint8Array>): Map<string, string> {
  let t = texts.get(files);
  if (!t) {
    t = new Map([...files].map(([k, v]) => [k, Buffer.from(v).toString('utf8')]));
    texts.set(files, t);
  }
  return t;
}

/** FluxPolicySources prepares the Flux-sourced policyRefs of ClusterSummaries (watches + downloads). */
export class FluxPolicySources {
  private readonly index = new ReferenceIndex();
  private readonly kinds: KindWatcher;

  constructor(
    informers: InformerFactory,
    enqueue: (key: string) => void,
    private readonly fetcher: ArtifactFetcher,
  ) {
    this.kinds = new KindWatcher(informers, this.index, enqueue);
  }

  /**
   * prepare looks up and downloads what the Flux policyRefs of a spec need and returns the lookup resolvePolicyRefs
   * answers them from. Problems are answers (`failure`), never throws: the caller reports them like any reference.
   */
  async prepare(key: string, spec: ClusterProfileSpec, names: ClusterNames, funcOptions: FuncOptions, signal?: AbortSignal): Promise<FluxPolicyLookup> {
    const refs = (spec.policyRefs ?? []).filter((r) => isFluxKind(r.kind) && !r.remoteURL);
    if (refs.length === 0) {
      this.forget(key);
      return () => undefined;
    }
    const informers = this.kinds.use(key, [...new Set(refs.map((r) => r.kind!))].map((k) => ({ apiVersion: FLUX_SOURCE_VERSIONS[k], kind: k })));
    await Promise.all([...informers.values()].map((inf) => (inf.hasSynced() ? undefined : inf.waitForSync({ timeoutMs: 1000 }).catch(() => undefined))));
    const answers = new Map<string, Answer | undefined>();
    const entries: RefEntry[] = [];
    for (const r of refs) {
      const ns = renderReferenceName('policyRefs.namespace', r.namespace ?? '', names, funcOptions);
      const nm = renderReferenceName('policyRefs.name', r.name ?? '', names, funcOptions);
      if (!ns.ok || !nm.ok) continue; // resolvePolicyRefs reports the template error itself
      const kind = r.kind as 'GitRepository' | 'OCIRepository' | 'Bucket';
      const k = `${kind}|${ns.text}|${nm.text}`;
      if (answers.has(k)) continue;
      const apiVersion = FLUX_SOURCE_VERSIONS[kind];
      entries.push({ key: refKey(apiVersion, kind, ns.text, nm.text) });
      const inf = informers.get(`${apiVersion}|${kind}`)!;
      if (!inf.hasSynced()) {
        const served = inf.state !== 'waiting-for-kind';
        const failure: FeatureFailure = {
          message: served ? `the management cluster's ${kind} objects could not be listed yet; retrying` : `the management cluster does not serve ${apiVersion} ${kind} (install Flux's source CRDs: ripple manifests crds --flux); it will be read as soon as it is installed`,
          reason: 'ReferenceNotFound',
          nonRetriable: !served,
        };
        answers.set(k, { object: { apiVersion, kind, metadata: { name: nm.text, namespace: ns.text } }, failure });
        continue;
      }
      const object = inf.cache.get(ns.text, nm.text) as KubeObject | undefined;
      if (!object) {
        answers.set(k, undefined);
        continue;
      }
      const a = artifactOf(object);
      if (!a) {
        answers.set(k, { object, failure: { message: 'source is not ready, artifact not found (status.artifact is empty); it will be deployed once source-controller publishes one', reason: 'ArtifactNotReady', nonRetriable: true } });
        continue;
      }
      try {
        answers.set(k, { object, files: asText(await this.fetcher.files(a, signal)) });
      } catch (err) {
        if (!(err instanceof ArtifactError)) throw err;
        answers.set(k, { object, failure: { message: err.message, reason: 'ArtifactFailed', nonRetriable: !err.transient } });
      }
    }
    this.index.set(key, entries);
    return (kind, namespace, name) => answers.get(`${kind}|${namespace}|${name}`);
  }

  forget(key: string): void {
    this.index.forget(key);
    this.kinds.forget(key);
  }

  async stop(): Promise<void> {
    await this.kinds.stop();
  }
}
