// helm-feature.ts: the Helm feature of a ClusterSummary — each `helmCharts` item installed, upgraded or uninstalled
// in the managed cluster the way `helm install|upgrade|uninstall` does it, with the release recorded in Helm 3's own
// storage format (Secrets sh.helm.release.v1.NAME.vN), so the real `helm` CLI lists, inspects, rolls back and
// uninstalls what Ripple installed, and Ripple continues releases `helm` installed.
//
// One pass, per chart in list order: fetch the chart (classic repository or OCI, cached by digest) → values
// (`values` and every `valuesFrom` ConfigMap/Secret key, rendered as templates with the cluster's data, merged in
// that order) → render with src/helm → read the release history → pending record → CRDs (install only) → pre hooks
// → objects (server-side apply, Helm's ownership labels and annotations) → objects the previous revision had and
// this one has not are deleted (unless `helm.sh/resource-policy: keep`) → post hooks → the record `deployed`, the
// previous one `superseded`, history pruned to maxHistory. Withdrawal (and helmChartAction: Uninstall) runs the
// delete hooks, deletes the release's objects in Helm's uninstall order and its records (or, with keepHistory,
// marks them uninstalled). Go: addon-controller controllers/handlers_helm.go; helm pkg/action install.go,
// upgrade.go, uninstall.go, hooks.go
import { parseAllDocuments } from 'yaml';
import type { ClusterProfileSpec, HelmChart } from '../api/index.js';
import { ChartCache, ChartFetcher, credentialsFromSecret, isChartSourceError, type ChartSpec } from '../charts/index.js';
import { readFileSync } from 'node:fs';
import {
  HelmError,
  INSTALL_ORDER,
  UNINSTALL_ORDER,
  defaultCapabilities,
  deployedRelease,
  formatHelmTime,
  lastRelease,
  loadChartArchive,
  mergeUserValues,
  newRelease,
  nextRevision,
  pendingOperation,
  renderChart as renderChartImpl,
  planHistoryPruning,
  releaseFromSecret,
  releaseSecret,
  releaseSecretName,
  sortByRevision,
  type ChartMetadata as ReleaseChartMetadata,
  type Release,
  type ReleaseHook,
  type RenderedChart,
} from '../helm/index.js';
import { errorMessage, isAlreadyExists, isNotFound, type KubeClient, type KubeObject } from '../kube/index.js';
import { goJSON, sha256Hex } from './stamp.js';
import { containsDesired } from './diff.js';
import type { AddonContext } from './context.js';
import type { PolicyRenderer } from './render.js';
import type { GoStruct } from '../gotemplate/index.js';

/** HELM_FEATURE is the featureID of the Helm feature in ClusterSummary status. */
export const HELM_FEATURE = 'Helm' as const;
const FIELD_MANAGER = 'helm';
const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const DEFAULT_MAX_HISTORY = 2;
const DEFAULT_RECOVER_AFTER = 5;

/** HelmReleaseSummary is one entry of ClusterSummary status.helmReleaseSummaries. */
export interface HelmReleaseSummary {
  releaseName: string;
  releaseNamespace: string;
  status: 'Managing' | 'Conflict';
  chartName?: string;
  chartVersion?: string;
  valuesHash?: string;
  failureMessage?: string;
  conflictMessage?: string;
}

/** HelmChartResult is what happened to one chart of a pass. */
export interface HelmChartResult {
  chart: HelmChart;
  action: 'Install' | 'Upgrade' | 'Uninstall' | 'NoAction';
  revision?: number;
  error?: string;
  /** transient: worth a retry with backoff (unreachable repository or cluster), as opposed to bad input. */
  transient?: boolean;
  /** Another ClusterSummary manages the release (lower tier, or first): nothing was done (helm-owners.ts). */
  conflict?: string;
  /** The chart's objects as applied (with Helm's ownership metadata): what drift detection compares against. */
  objects?: KubeObject[];
  /** Drift repair: the deployed revision's objects were applied again (no new revision). */
  repaired?: boolean;
  /** A release stuck in pending-* or never installed was recovered (recoverAfterConsecutiveFailures): how. */
  recovered?: string;
}

/** ReleaseReport is one ClusterReport status.releaseReports entry (what DryRun would do to a release). */
export interface ReleaseReport {
  chartName: string;
  chartVersion: string;
  releaseNamespace: string;
  action: 'No Action' | 'Install' | 'Upgrade' | 'Delete' | 'Conflict' | 'Update Values';
  message?: string;
  /** The chart could not be evaluated (not part of the ClusterReport: status and an Event say it). */
  error?: string;
}

/**
 * unhonouredOptions names the helmCharts options a chart sets that Ripple accepts but does not act on yet, so the
 * caller can say so visibly (a Warning Event) instead of ignoring them silently.
 */
export function unhonouredOptions(chart: HelmChart): string[] {
  const o = chart.options ?? {};
  const out: string[] = [];
  const flag = (on: unknown, name: string) => on && out.push(name);
  flag(o.runTests, 'options.runTests');
  flag(o.dependencyUpdate, 'options.dependencyUpdate');
  flag(o.postRenderStrategy, 'options.postRenderStrategy');
  flag(o.installOptions?.takeOwnership, 'options.installOptions.takeOwnership');
  flag(o.upgradeOptions?.force, 'options.upgradeOptions.force');
  flag(o.upgradeOptions?.recreate, 'options.upgradeOptions.recreate');
  flag(o.upgradeOptions?.cleanupOnFail, 'options.upgradeOptions.cleanupOnFail');
  flag(o.upgradeOptions?.resetValues, 'options.upgradeOptions.resetValues');
  flag(o.upgradeOptions?.reuseValues, 'options.upgradeOptions.reuseValues');
  flag(o.upgradeOptions?.resetThenReuseValues, 'options.upgradeOptions.resetThenReuseValues');
  flag(o.upgradeOptions?.upgradeCRDs, 'options.upgradeOptions.upgradeCRDs');
  flag(o.upgradeOptions?.takeOwnership, 'options.upgradeOptions.takeOwnership');
  flag(chart.signatureVerification, 'signatureVerification');
  flag(chart.provenanceVerification, 'provenanceVerification');
  return out;
}

/** HelmPass is what one Helm pass needs: the ClusterSummary's spec, the target cluster and the template data. */
export interface HelmPass {
  spec: ClusterProfileSpec;
  /** Namespace of the cluster in the management cluster (default namespace of valuesFrom and credentials). */
  clusterNamespace: string;
  /** Client of the managed cluster. */
  client: KubeClient;
  /** Template data for values (renderer.dataFor of the pass). */
  data: GoStruct;
  /** Releases the previous pass managed (status.helmReleaseSummaries), to uninstall those no longer listed. */
  previous: readonly { releaseName?: string; releaseNamespace?: string; status?: string }[];
  /** The ClusterSummary (`namespace/name`): consecutive failures are counted per ClusterSummary and release. */
  owner?: string;
  /** Releases (`namespace/name`) another ClusterSummary manages: reported as conflicts, left alone. */
  conflicts?: ReadonlyMap<string, string>;
  /** Releases (`namespace/name`) no longer listed here that another ClusterSummary takes over: not uninstalled. */
  handover?: ReadonlySet<string>;
  /** Drift was seen: apply the deployed revision's objects again even when nothing changed. */
  repair?: boolean;
  /** Return the applied objects (drift detection tracks them). */
  track?: boolean;
}

/** HelmFeature deploys and withdraws the Helm charts of ClusterSummaries. */
export class HelmFeature {
  constructor(
    private readonly c: AddonContext,
    private readonly renderer: PolicyRenderer,
    cache: ChartCache,
  ) {
    this.fetcher = new ChartFetcher(cache);
  }

  /** Concurrent passes for one chart (a profile fanning out to a fleet) share one index fetch and one download. */
  private readonly fetcher: ChartFetcher;
  /** Charts read from the digest-addressed cache, by path (the same archive is not parsed once per cluster). */
  private readonly loaded = new Map<string, ReturnType<typeof loadChartArchive>>();

  private load(path: string): ReturnType<typeof loadChartArchive> {
    let c = this.loaded.get(path);
    if (!c) {
      c = loadChartArchive(new Uint8Array(readFileSync(path)));
      if (this.loaded.size >= 32) this.loaded.delete(this.loaded.keys().next().value!);
      this.loaded.set(path, c);
    }
    return c;
  }

  /** Consecutive failed passes per ClusterSummary and release (`owner|namespace/name`), reset by a success. */
  private readonly failures = new Map<string, number>();

  /**
   * inputsHash fingerprints what a Helm pass depends on in the management cluster — the charts, the valuesFrom
   * content and credentials — so an unchanged one can stay quiet.
   */
  inputsHash(spec: ClusterProfileSpec, clusterNamespace: string, cluster: unknown): string {
    const charts = spec.helmCharts ?? [];
    const refs = charts.flatMap((h) =>
      [...(h.valuesFrom ?? []), ...(h.registryCredentialsConfig?.credentials ? [{ kind: 'Secret', ...h.registryCredentialsConfig.credentials }] : []), ...(h.registryCredentialsConfig?.ca ? [{ kind: 'Secret', ...h.registryCredentialsConfig.ca }] : [])].map((r) => {
        const o = this.source(r.kind ?? 'ConfigMap', r.namespace || clusterNamespace, r.name ?? '');
        return [r.kind, r.namespace, r.name, o?.metadata.resourceVersion ?? ''];
      }),
    );
    const templated = charts.some((h) => (h.values ?? '').includes('{{')) || refs.length > 0;
    return sha256Hex(goJSON({ charts, refs, cluster: templated ? cluster : null }));
  }

  /** deploy runs one pass over every chart of the spec, plus uninstalls of releases no longer listed. */
  async deploy(p: HelmPass): Promise<HelmChartResult[]> {
    const out: HelmChartResult[] = [];
    const listed = new Set<string>();
    for (const chart of p.spec.helmCharts ?? []) {
      const rel = `${chart.releaseNamespace}/${chart.releaseName}`;
      listed.add(rel);
      const conflict = p.conflicts?.get(rel);
      if (conflict) {
        out.push({ chart, action: 'NoAction', conflict });
        continue;
      }
      const counter = `${p.owner ?? ''}|${rel}`;
      try {
        if (chart.helmChartAction === 'Uninstall') {
          const done = await this.uninstall(p.client, chart.releaseName, chart.releaseNamespace, chart);
          out.push({ chart, action: done ? 'Uninstall' : 'NoAction' });
        } else out.push(await this.install(p, chart, this.failures.get(counter) ?? 0));
        this.failures.delete(counter);
      } catch (err) {
        this.failures.set(counter, (this.failures.get(counter) ?? 0) + 1);
        out.push({ chart, action: 'NoAction', error: describeFailure(chart, err), transient: isTransient(err) });
        // Sveltos deploys charts in order and stops at the first failure (later charts may depend on it).
        break;
      }
    }
    for (const prev of p.previous) {
      if (!prev.releaseName || !prev.releaseNamespace) continue;
      const rel = `${prev.releaseNamespace}/${prev.releaseName}`;
      // Only what this ClusterSummary managed is uninstalled, and not when another one takes it over.
      if (listed.has(rel) || prev.status === 'Conflict' || p.handover?.has(rel)) continue;
      await this.uninstall(p.client, prev.releaseName, prev.releaseNamespace, undefined);
    }
    return out;
  }

  /** forgetFailures drops the consecutive-failure counts of a ClusterSummary that went away. */
  forgetFailures(owner: string): void {
    for (const k of [...this.failures.keys()]) if (k.startsWith(`${owner}|`)) this.failures.delete(k);
  }

  /**
   * dryRun reports, per chart, what a pass would do (ClusterReport status.releaseReports): Install, Upgrade (another
   * chart version), Update Values (same version, other values or objects), Delete, Conflict or No Action, with the
   * objects that would be created, changed or deleted. Nothing is written to the cluster.
   */
  async dryRun(p: HelmPass): Promise<ReleaseReport[]> {
    const out: ReleaseReport[] = [];
    for (const chart of p.spec.helmCharts ?? []) {
      const base = { chartName: chart.chartName || chart.releaseName, chartVersion: chart.chartVersion || '*', releaseNamespace: chart.releaseNamespace };
      const rel = `${chart.releaseNamespace}/${chart.releaseName}`;
      const conflict = p.conflicts?.get(rel);
      if (conflict) {
        out.push({ ...base, action: 'Conflict', message: conflict });
        continue;
      }
      try {
        const history = await this.history(p.client, chart.releaseName, chart.releaseNamespace);
        const last = lastRelease(history);
        const installed = last && statusOf(last) !== 'uninstalled' ? last : undefined;
        if (chart.helmChartAction === 'Uninstall') {
          out.push({ ...base, action: installed ? 'Delete' : 'No Action', ...(installed ? { message: `release ${rel} revision ${installed.version} would be uninstalled` } : {}) });
          continue;
        }
        const prep = await this.prepare(p, chart, history);
        const version = prep.loaded.metadata?.version ?? '';
        const after = parseObjects(prep.manifest);
        if (!prep.deployed) {
          out.push({ ...base, chartVersion: version, action: 'Install', message: `revision ${prep.revision}: ${describeObjects('create', after, chart.releaseNamespace)}` });
          continue;
        }
        const before = parseObjects(prep.deployed.manifest);
        const changes = objectChanges(before, after, chart.releaseNamespace);
        const was = prep.deployed.chart?.metadata?.version ?? '';
        if (was !== version) out.push({ ...base, chartVersion: version, action: 'Upgrade', message: `Current version: ${was}. Would move to version: ${version}. ${changes}` });
        else if (prep.unchanged) out.push({ ...base, chartVersion: version, action: 'No Action', message: `Already managing this chart (revision ${prep.deployed.version})` });
        else out.push({ ...base, chartVersion: version, action: 'Update Values', message: `values ${goJSON(prep.deployed.config) === goJSON(prep.values) ? 'unchanged' : 'changed'}. ${changes}` });
      } catch (err) {
        const error = describeFailure(chart, err);
        out.push({ ...base, action: 'No Action', message: `cannot evaluate: ${error}`, error });
      }
    }
    return out;
  }

  /**
   * withdraw uninstalls every release of the spec (the ClusterSummary goes away), except those in `skip`: managed
   * by another ClusterSummary, or handed over to one that lists them too.
   */
  async withdraw(client: KubeClient, spec: ClusterProfileSpec, previous: HelmPass['previous'], skip: ReadonlySet<string> = new Set()): Promise<void> {
    const seen = new Set<string>(skip);
    for (const r of previous) if (r.status === 'Conflict') seen.add(`${r.releaseNamespace}/${r.releaseName}`);
    // Reverse order: a chart installed after another may depend on it.
    for (const chart of [...(spec.helmCharts ?? [])].reverse()) {
      const rel = `${chart.releaseNamespace}/${chart.releaseName}`;
      if (seen.has(rel)) continue;
      seen.add(rel);
      await this.uninstall(client, chart.releaseName, chart.releaseNamespace, chart);
    }
    for (const prev of previous) {
      if (!prev.releaseName || !prev.releaseNamespace || seen.has(`${prev.releaseNamespace}/${prev.releaseName}`)) continue;
      await this.uninstall(client, prev.releaseName, prev.releaseNamespace, undefined);
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // install / upgrade

  /**
   * prepare is the read-only part of an install/upgrade: values, chart, render, and how it compares with the
   * deployed revision. A retry of a failed revision with the same chart, values and objects reuses that revision
   * (`retry`) instead of adding a failed record on every backoff retry.
   */
  private async prepare(p: HelmPass, chart: HelmChart, history: Release[]) {
    const name = chart.releaseName;
    const namespace = chart.releaseNamespace;
    const opts = chart.options ?? {};
    const deployed = deployedRelease(history);
    const live = history.filter((r) => statusOf(r) !== 'uninstalled' && statusOf(r) !== 'failed');
    const isUpgrade = deployed !== undefined || live.length > 0;
    const values = this.values(p, chart);
    const fetched = await this.fetcher.fetch(await this.chartSpec(p, chart));
    const loaded = this.load(fetched.path);
    const manifestOf = (r: RenderedChart) => r.manifests.map((m) => `---\n# Source: ${m.name}\n${m.content}\n`).join('');
    const same = (r: Release | undefined, manifest: string) => r !== undefined && r.manifest === manifest && goJSON(r.config) === goJSON(values) && r.chart?.metadata?.version === loaded.metadata?.version;
    const last = lastRelease(history);
    if (last && statusOf(last) === 'failed') {
      const again = this.render(loaded, values, name, namespace, last.version, isUpgrade, opts.skipSchemaValidation);
      const manifest = manifestOf(again);
      if (same(last, manifest)) return { deployed, isUpgrade, values, loaded, rendered: again, manifest, revision: last.version, retry: true, unchanged: false };
    }
    const revision = nextRevision(history);
    const rendered = this.render(loaded, values, name, namespace, revision, isUpgrade, opts.skipSchemaValidation);
    const manifest = manifestOf(rendered);
    return { deployed, isUpgrade, values, loaded, rendered, manifest, revision, retry: false, unchanged: same(deployed, manifest) };
  }

  private async install(p: HelmPass, chart: HelmChart, failures: number): Promise<HelmChartResult> {
    const { client } = p;
    const name = chart.releaseName;
    const namespace = chart.releaseNamespace;
    const opts = chart.options ?? {};
    let history = await this.history(client, name, namespace);
    const recovered = await this.recover(client, chart, history, failures);
    if (recovered) history = await this.history(client, name, namespace);
    const prep = await this.prepare(p, chart, history);
    const { deployed, isUpgrade, values, loaded, rendered, manifest, revision } = prep;
    // Unchanged since the deployed revision: nothing to do (Sveltos' "NoAction"), unless drift asks for a repair.
    if (deployed && prep.unchanged) {
      const objects = p.track || p.repair ? await this.owned(client, parseObjects(deployed.manifest), name, namespace) : undefined;
      const repaired = p.repair ? await this.repair(client, objects!, namespace) : 0;
      return { chart, action: 'NoAction', revision: deployed.version, objects, repaired: repaired > 0, recovered };
    }
    const now = new Date(this.c.clock.now());
    const rel: Release = newRelease(name, namespace, revision);
    rel.info = {
      firstDeployed: deployed?.info?.firstDeployed || formatHelmTime(now),
      lastDeployed: formatHelmTime(now),
      deleted: '',
      description: isUpgrade ? 'Upgrade complete' : 'Install complete',
      status: isUpgrade ? 'pending-upgrade' : 'pending-install',
      notes: rendered.notes,
    };
    rel.chart = releaseChart(loaded);
    rel.config = values;
    rel.manifest = manifest;
    rel.hooks = rendered.hooks.map((h) => ({ ...h, deletePolicies: h.deletePolicies as ReleaseHook['deletePolicies'], lastRun: { startedAt: '', completedAt: '', phase: '' } }));
    if (opts.labels) rel.labels = { ...opts.labels };
    if (opts.description) rel.info.description = opts.description;
    if (opts.installOptions?.createNamespace !== false) await this.ensureNamespace(client, namespace);
    // Storage.Create: the least recent records go first, keeping maxHistory including the new one. A retry of the
    // same failed revision rewrites that record (no new one: backoff retries do not pile up failed revisions).
    const maxHistory = opts.upgradeOptions?.maxHistory ?? DEFAULT_MAX_HISTORY;
    if (!prep.retry) for (const v of planHistoryPruning(history, maxHistory)) await deleteIfExists(client, { apiVersion: 'v1', kind: 'Secret', namespace, name: releaseSecretName(name, v) });
    await this.writeRecord(client, rel, prep.retry ? 'update' : 'create');
    const timeoutMs = parseGoDuration(opts.timeout) ?? DEFAULT_TIMEOUT_MS;
    const hooksOff = opts.disableHooks || (isUpgrade ? opts.upgradeOptions?.disableHooks : opts.installOptions?.disableHooks);
    try {
      if (!isUpgrade && !opts.skipCRDs) await this.installCRDs(client, rendered);
      if (!hooksOff) await this.runHooks(client, rel, isUpgrade ? 'pre-upgrade' : 'pre-install', namespace, timeoutMs);
      const objects = parseObjects(manifest);
      await this.applyAll(client, objects, name, namespace);
      if (deployed) await this.deleteDropped(client, parseObjects(deployed.manifest), objects, namespace);
      if (opts.wait || opts.waitForJobs) await waitForReady(client, objects, namespace, Boolean(opts.waitForJobs), timeoutMs);
      if (!hooksOff) await this.runHooks(client, rel, isUpgrade ? 'post-upgrade' : 'post-install', namespace, timeoutMs);
    } catch (err) {
      rel.info.status = 'failed';
      rel.info.description = `${isUpgrade ? 'Upgrade' : 'Release'} "${name}" failed: ${errorMessage(err)}`;
      await this.writeRecord(client, rel, 'update');
      if (!opts.atomic) throw err;
      // atomic (Helm's --atomic): a failed install is uninstalled, a failed upgrade rolled back to the deployed one.
      if (deployed) {
        await this.rollback(client, deployed, rel, namespace);
        throw new HelmInstallError(`an error occurred while upgrading; the release was rolled back to revision ${deployed.version} (atomic): ${errorMessage(err)}`, { cause: err });
      }
      await this.uninstall(client, name, namespace, { ...chart, options: { ...opts, uninstallOptions: { ...opts.uninstallOptions, keepHistory: false } } });
      throw new HelmInstallError(`the installation failed and was uninstalled (atomic): ${errorMessage(err)}`, { cause: err });
    }
    rel.info.status = 'deployed';
    await this.writeRecord(client, rel, 'update');
    const superseded = history.map((r) => (statusOf(r) === 'deployed' ? withInfo(r, { status: 'superseded' }) : r));
    for (const [i, old] of history.entries()) if (superseded[i] !== old) await this.writeRecord(client, superseded[i]!, 'update');
    const objects = p.track ? await this.owned(client, parseObjects(manifest), name, namespace) : undefined;
    return { chart, action: isUpgrade ? 'Upgrade' : 'Install', revision, objects, recovered };
  }

  /**
   * repair applies again, in install order, the objects of the deployed revision that are missing or no longer hold
   * what was applied (drift); returns how many. Objects intact are left alone (a drift report can be our own upgrade).
   */
  private async repair(client: KubeClient, objects: KubeObject[], namespace: string): Promise<number> {
    let n = 0;
    for (const o of sortObjects(objects, INSTALL_ORDER)) {
      const live = await client.getIfExists<KubeObject>(refOf(o, namespace));
      if (live && containsDesired(live, o)) continue;
      try {
        await client.apply(o, { fieldManager: FIELD_MANAGER, force: true });
      } catch (err) {
        throw new HelmInstallError(`restoring ${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name} after drift: ${errorMessage(err)}`, { cause: err });
      }
      n++;
    }
    return n;
  }

  /** owned is the chart's objects as applyAll sends them (namespace defaulted, Helm's ownership metadata). */
  private async owned(client: KubeClient, objects: KubeObject[], name: string, namespace: string): Promise<KubeObject[]> {
    return Promise.all(objects.map((o) => withOwnership(client, o, name, namespace)));
  }

  /**
   * recover unblocks a release a crashed process left behind, as Sveltos' installOptions.recoverAfterConsecutiveFailures
   * allows: a release locked in pending-install/-upgrade/-rollback fails the pass (Helm's "another operation is in
   * progress") until it has failed that many times in a row (default 5, with backoff between the passes: a live
   * `helm` command has time to finish); then a release that was never deployed is uninstalled (its objects and
   * records) and installed again, and one that was deployed before has the pending record marked failed, so the
   * upgrade goes on from the deployed revision. A never-deployed release whose installs keep failing is uninstalled
   * likewise before retrying. Returns what was done, or undefined.
   */
  private async recover(client: KubeClient, chart: HelmChart, history: Release[], failures: number): Promise<string | undefined> {
    const name = chart.releaseName;
    const namespace = chart.releaseNamespace;
    const set = (chart.options?.installOptions as { recoverAfterConsecutiveFailures?: unknown } | undefined)?.recoverAfterConsecutiveFailures;
    const limit = typeof set === 'number' ? set : DEFAULT_RECOVER_AFTER;
    const pending = pendingOperation(history);
    const everDeployed = history.some((r) => statusOf(r) === 'deployed' || statusOf(r) === 'superseded');
    if (pending && failures + 1 < limit) {
      throw new HelmPendingError(
        `release ${namespace}/${name} revision ${pending.version} is ${statusOf(pending)} (since ${pending.info?.lastDeployed || 'unknown'}): another operation (install/upgrade/rollback) is in progress, or the process running it stopped mid-way; failure ${failures + 1} of ${limit} before Ripple recovers it (options.installOptions.recoverAfterConsecutiveFailures)`,
      );
    }
    if (!pending && (everDeployed || failures < limit || history.length === 0 || statusOf(lastRelease(history)!) === 'uninstalled')) return undefined;
    if (!everDeployed) {
      const what = pending ? `${statusOf(pending)} revision ${pending.version}` : `failed revision ${lastRelease(history)!.version}`;
      await this.uninstall(client, name, namespace, { ...chart, options: { ...chart.options, disableHooks: true, uninstallOptions: { ...chart.options?.uninstallOptions, keepHistory: false } } });
      return `release ${namespace}/${name} was never deployed and its ${what} blocked it ${failures} time(s) in a row: uninstalled the stale release and installed again (recoverAfterConsecutiveFailures ${limit})`;
    }
    const failed = withInfo(pending!, { status: 'failed', description: `${pending!.info?.description ?? ''}; marked failed by Ripple: the operation did not finish (${statusOf(pending!)} after ${failures} consecutive failure(s))` });
    await this.writeRecord(client, failed, 'update');
    return `release ${namespace}/${name} revision ${pending!.version} was stuck in ${statusOf(pending!)}: marked failed after ${failures} consecutive failure(s) and upgraded from the deployed revision (recoverAfterConsecutiveFailures ${limit})`;
  }

  /**
   * rollback is Helm's rollback to a deployed revision: its objects applied again, what the failed revision added
   * deleted, a new record (`Rollback to N`) deployed, the old one superseded. Go: pkg/action/rollback.go
   */
  private async rollback(client: KubeClient, target: Release, failed: Release, namespace: string): Promise<void> {
    const objects = parseObjects(target.manifest);
    await this.applyAll(client, objects, target.name, namespace);
    await this.deleteDropped(client, parseObjects(failed.manifest), objects, namespace);
    const now = formatHelmTime(new Date(this.c.clock.now()));
    const rolled: Release = { ...target, version: failed.version + 1, info: { ...(target.info ?? withInfo(target, {}).info!), status: 'deployed', lastDeployed: now, description: `Rollback to ${target.version}` } };
    await this.writeRecord(client, rolled, 'create');
    await this.writeRecord(client, withInfo(target, { status: 'superseded' }), 'update');
  }

  private render(loaded: ReturnType<typeof loadChartArchive>, values: Record<string, unknown>, name: string, namespace: string, revision: number, isUpgrade: boolean, skipSchemaValidation?: boolean): RenderedChart {
    return renderChartWith(loaded, values, { name, namespace, revision, isUpgrade, isInstall: !isUpgrade }, skipSchemaValidation);
  }

  /** values renders `values` and each valuesFrom source as templates with the cluster's data and merges them. */
  private values(p: HelmPass, chart: HelmChart): Record<string, unknown> {
    const files: { name: string; text: string }[] = [];
    const render = (what: string, text: string) => {
      if (!text.includes('{{')) return text;
      const r = this.renderer.render(what, text, p.data);
      if (!r.ok) throw new HelmValuesError(`${what}: ${r.message}`);
      return r.text;
    };
    if (chart.values) files.push({ name: `helmCharts ${chart.releaseName} values`, text: render(`${chart.releaseName}-values`, chart.values) });
    for (const ref of chart.valuesFrom ?? []) {
      const kind = ref.kind === 'Secret' ? 'Secret' : 'ConfigMap';
      const ns = ref.namespace || p.clusterNamespace;
      const o = this.source(kind, ns, ref.name);
      if (!o) {
        if (ref.optional) continue;
        throw new HelmValuesError(`valuesFrom ${kind} ${ns}/${ref.name} not found`);
      }
      const data = sourceData(o);
      for (const key of Object.keys(data).sort()) files.push({ name: `${kind} ${ns}/${ref.name} key ${key}`, text: render(`${ns}/${ref.name}/${key}`, data[key]!) });
    }
    try {
      return mergeUserValues(files) as Record<string, unknown>;
    } catch (err) {
      if (err instanceof HelmError) throw new HelmValuesError(err.message);
      throw err;
    }
  }

  private async chartSpec(p: HelmPass, chart: HelmChart): Promise<ChartSpec> {
    const rc = chart.registryCredentialsConfig;
    const spec: ChartSpec = {
      repositoryURL: chart.repositoryURL,
      repositoryName: chart.repositoryName ?? '',
      chartName: chart.chartName ?? '',
      chartVersion: chart.chartVersion ?? '',
      insecureSkipTLSVerify: rc?.insecureSkipTLSVerify,
      plainHTTP: rc?.plainHTTP,
      passCredentialsAll: chart.options?.passCredentialsAll,
    };
    if (rc?.credentials) {
      const ns = rc.credentials.namespace || p.clusterNamespace;
      const s = this.source('Secret', ns, rc.credentials.name ?? '');
      if (!s) throw new HelmValuesError(`registryCredentialsConfig.credentials: Secret ${ns}/${rc.credentials.name} not found`);
      const host = hostOf(chart.repositoryURL);
      spec.credentials = credentialsFromSecret(host, { name: rc.credentials.name ?? '', type: (s as { type?: string }).type, data: sourceData(s) });
    }
    if (rc?.ca) {
      const ns = rc.ca.namespace || p.clusterNamespace;
      const s = this.source('Secret', ns, rc.ca.name ?? '');
      if (!s) throw new HelmValuesError(`registryCredentialsConfig.ca: Secret ${ns}/${rc.ca.name} not found`);
      spec.ca = sourceData(s)['ca.crt'];
    }
    return spec;
  }

  private source(kind: string, namespace: string, name: string): KubeObject | undefined {
    return (kind === 'Secret' ? this.c.caches.secrets : this.c.caches.configMaps).cache.get(namespace, name);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // uninstall

  /** uninstall removes a release: delete hooks, its objects in uninstall order, its records. False: nothing there. */
  private async uninstall(client: KubeClient, name: string, namespace: string, chart: HelmChart | undefined): Promise<boolean> {
    const history = await this.history(client, name, namespace);
    const last = lastRelease(history);
    if (!last || statusOf(last) === 'uninstalled') return false;
    const opts = chart?.options?.uninstallOptions;
    const timeoutMs = parseGoDuration(chart?.options?.timeout) ?? DEFAULT_TIMEOUT_MS;
    const hooksOff = chart?.options?.disableHooks || opts?.disableHooks;
    await this.writeRecord(client, withInfo(last, { status: 'uninstalling' }), 'update');
    if (!hooksOff) await this.runHooks(client, last, 'pre-delete', namespace, timeoutMs);
    const objects = sortObjects(parseObjects(last.manifest), UNINSTALL_ORDER);
    for (const o of objects) {
      if (keep(o)) continue;
      await deleteIfExists(client, refOf(o, namespace), opts?.deletionPropagation);
    }
    if (!hooksOff) await this.runHooks(client, last, 'post-delete', namespace, timeoutMs);
    if (opts?.keepHistory) {
      const now = formatHelmTime(new Date(this.c.clock.now()));
      await this.writeRecord(client, withInfo(last, { status: 'uninstalled', deleted: now, description: 'Uninstallation complete' }), 'update');
    } else {
      for (const r of history) await deleteIfExists(client, { apiVersion: 'v1', kind: 'Secret', namespace, name: releaseSecretName(name, r.version) });
    }
    return true;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // cluster I/O

  /** history reads a release's records (Secrets labelled owner=helm,name=NAME) from the release namespace. */
  private async history(client: KubeClient, name: string, namespace: string): Promise<Release[]> {
    const list = await client.list<KubeObject>({ apiVersion: 'v1', kind: 'Secret' }, { namespace, labelSelector: `owner=helm,name=${name}` });
    const out: Release[] = [];
    for (const s of list.items) {
      if ((s as { type?: string }).type !== 'helm.sh/release.v1') continue;
      out.push(releaseFromSecret(s as Parameters<typeof releaseFromSecret>[0]));
    }
    return sortByRevision(out);
  }

  private async writeRecord(client: KubeClient, r: Release, op: 'create' | 'update'): Promise<void> {
    const secret = releaseSecret(r, { op, nowUnix: Math.floor(this.c.clock.now() / 1000) });
    if (op === 'create') {
      try {
        await client.create(secret as unknown as KubeObject, { fieldManager: FIELD_MANAGER });
        return;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
    const cur = await client.getIfExists<KubeObject>({ apiVersion: 'v1', kind: 'Secret', namespace: r.namespace, name: secret.metadata.name });
    if (!cur) {
      await client.create(releaseSecret(r, { op: 'create', nowUnix: Math.floor(this.c.clock.now() / 1000) }) as unknown as KubeObject, { fieldManager: FIELD_MANAGER });
      return;
    }
    // Update keeps createdAt (Helm's Update merges the stored labels under the system ones).
    const labels = { ...(cur.metadata.labels ?? {}), ...secret.metadata.labels };
    await client.update({ ...(secret as unknown as KubeObject), metadata: { ...secret.metadata, labels, resourceVersion: cur.metadata.resourceVersion } }, { fieldManager: FIELD_MANAGER });
  }

  private async ensureNamespace(client: KubeClient, namespace: string): Promise<void> {
    if (await client.getIfExists({ apiVersion: 'v1', kind: 'Namespace', name: namespace })) return;
    try {
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }, { fieldManager: FIELD_MANAGER });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  /** installCRDs creates the chart's crds/ files that do not exist yet (Helm never upgrades or deletes them). */
  private async installCRDs(client: KubeClient, rendered: RenderedChart): Promise<void> {
    for (const crd of rendered.crds) {
      for (const o of parseObjects(crd.content)) {
        try {
          await client.create(o, { fieldManager: FIELD_MANAGER });
        } catch (err) {
          if (!isAlreadyExists(err)) throw new HelmInstallError(`failed to install CRD ${crd.filename}: ${errorMessage(err)}`);
        }
      }
    }
    if (rendered.crds.length > 0) client.discovery.invalidate();
  }

  /** applyAll applies the release's objects in install order with Helm's ownership metadata. */
  private async applyAll(client: KubeClient, objects: KubeObject[], name: string, namespace: string): Promise<void> {
    for (const o of sortObjects(objects, INSTALL_ORDER)) {
      const obj = await withOwnership(client, o, name, namespace);
      try {
        await client.apply(obj, { fieldManager: FIELD_MANAGER, force: true });
      } catch (err) {
        throw new HelmInstallError(`${o.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${o.metadata.name}: ${errorMessage(err)}`, { cause: err });
      }
    }
  }

  /** deleteDropped deletes what the previous revision had and this one has not (Helm's upgrade rule). */
  private async deleteDropped(client: KubeClient, before: KubeObject[], after: KubeObject[], namespace: string): Promise<void> {
    const id = (o: KubeObject) => `${o.apiVersion}|${o.kind}|${o.metadata.namespace ?? namespace}|${o.metadata.name}`;
    const now = new Set(after.map(id));
    for (const o of sortObjects(before, UNINSTALL_ORDER)) {
      if (now.has(id(o)) || keep(o)) continue;
      await deleteIfExists(client, refOf(o, namespace));
    }
  }

  /**
   * runHooks runs the hooks of one event in weight order (then name), as Helm's execHook: before-hook-creation
   * deletes a leftover first (the default policy), Jobs and Pods are waited for until they finish (or the timeout),
   * then hook-succeeded / hook-failed delete them. A failed hook fails the operation.
   */
  private async runHooks(client: KubeClient, rel: Release, event: string, namespace: string, timeoutMs: number): Promise<void> {
    const hooks = rel.hooks.filter((h) => (h.events as string[]).includes(event)).sort((a, b) => a.weight - b.weight || a.name.localeCompare(b.name));
    for (const h of hooks) {
      const policies: string[] = h.deletePolicies.length > 0 ? [...h.deletePolicies] : ['before-hook-creation'];
      for (const o of parseObjects(h.manifest)) {
        const ref = refOf(o, namespace);
        if (policies.includes('before-hook-creation')) await deleteAndWait(client, ref, timeoutMs);
        const started = formatHelmTime(new Date(this.c.clock.now()));
        h.lastRun = { startedAt: started, completedAt: '', phase: 'Running' };
        const obj = await withNamespace(client, o, namespace);
        try {
          await client.create(obj, { fieldManager: FIELD_MANAGER });
        } catch (err) {
          h.lastRun.phase = 'Failed';
          throw new HelmInstallError(`${event} hook ${h.path}: ${errorMessage(err)}`, { cause: err });
        }
        const ok = await waitForHook(client, obj, timeoutMs);
        h.lastRun = { startedAt: started, completedAt: formatHelmTime(new Date(this.c.clock.now())), phase: ok === true ? 'Succeeded' : 'Failed' };
        if (ok !== true) {
          if (policies.includes('hook-failed')) await deleteIfExists(client, ref);
          throw new HelmInstallError(`${event} hook ${h.path} failed: ${ok}`);
        }
        if (policies.includes('hook-succeeded')) await deleteIfExists(client, ref);
      }
    }
  }
}

function statusOf(r: Release): string {
  return r.info?.status ?? 'unknown';
}

/** withInfo returns a copy of a record with some info fields replaced (a record Helm wrote may lack info). */
function withInfo(r: Release, info: Partial<NonNullable<Release['info']>>): Release {
  const base = r.info ?? { firstDeployed: '', lastDeployed: '', deleted: '', description: '', status: 'unknown' as const, notes: '' };
  return { ...r, info: { ...base, ...info } };
}

/** HelmValuesError is bad input in values, valuesFrom or credentials (not retried until the input changes). */
export class HelmValuesError extends Error {
  override readonly name = 'HelmValuesError';
}

/** HelmPendingError is a release locked by another (or a crashed) operation: retried with backoff, then recovered. */
export class HelmPendingError extends Error {
  override readonly name = 'HelmPendingError';
}

/** HelmInstallError is a failure while applying a release to the cluster. */
export class HelmInstallError extends Error {
  override readonly name = 'HelmInstallError';
}

function renderChartWith(loaded: ReturnType<typeof loadChartArchive>, values: Record<string, unknown>, release: { name: string; namespace: string; revision: number; isUpgrade: boolean; isInstall: boolean }, skipSchemaValidation?: boolean): RenderedChart {
  return renderChartImpl(loaded, { values: values as never, release, capabilities: defaultCapabilities(), skipSchemaValidation });
}


function releaseChart(loaded: ReturnType<typeof loadChartArchive>): Release['chart'] {
  const files = (xs: readonly { name: string; data: Uint8Array }[]) => xs.map((f) => ({ name: f.name, data: f.data }));
  return {
    metadata: releaseMetadata(loaded.metadata!),
    lock: null,
    templates: files(loaded.templates),
    values: (loaded.values ?? {}) as Record<string, unknown>,
    schema: loaded.schema ?? null,
    files: files(loaded.files),
  };
}

/** releaseMetadata is Chart.yaml as the release record stores it (Go's omitempty: empty fields left out). */
function releaseMetadata(m: NonNullable<ReturnType<typeof loadChartArchive>['metadata']>): ReleaseChartMetadata {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m)) {
    if (v === null || v === '' || v === false || (Array.isArray(v) && v.length === 0)) continue;
    if (k === 'maintainers' || k === 'dependencies') out[k] = (v as unknown[]).filter((x) => x !== null);
    else out[k] = v;
  }
  return out as ReleaseChartMetadata;
}

function describeFailure(chart: HelmChart, err: unknown): string {
  const what = `chart ${chart.chartName ?? ''}${chart.chartVersion ? `@${chart.chartVersion}` : ''} (release ${chart.releaseNamespace}/${chart.releaseName})`;
  return `${what}: ${errorMessage(err)}`;
}

/** describeObjects lists objects for a report: `create ConfigMap web/a, Service web/b`. */
function describeObjects(verb: string, objs: readonly KubeObject[], namespace: string): string {
  return objs.length === 0 ? 'no objects' : `${verb} ${objs.map((o) => `${o.kind} ${o.metadata.namespace ?? namespace}/${o.metadata.name}`).join(', ')}`;
}

/** objectChanges says which objects an upgrade would create, update and delete (by their rendered content). */
function objectChanges(before: readonly KubeObject[], after: readonly KubeObject[], namespace: string): string {
  const id = (o: KubeObject) => `${o.kind} ${o.metadata.namespace ?? namespace}/${o.metadata.name}`;
  const was = new Map(before.map((o) => [id(o), goJSON(o)]));
  const now = new Map(after.map((o) => [id(o), goJSON(o)]));
  const created = [...now.keys()].filter((k) => !was.has(k));
  const updated = [...now.keys()].filter((k) => was.has(k) && was.get(k) !== now.get(k));
  const deleted = [...was.keys()].filter((k) => !now.has(k));
  const parts = [created.length ? `create ${created.join(', ')}` : '', updated.length ? `update ${updated.join(', ')}` : '', deleted.length ? `delete ${deleted.join(', ')}` : ''].filter(Boolean);
  return parts.length ? `Objects: ${parts.join('; ')}` : 'Objects unchanged';
}

function isTransient(err: unknown): boolean {
  if (isChartSourceError(err)) return err.code === 'Unreachable';
  if (err instanceof HelmValuesError || err instanceof HelmError) return false;
  return true;
}

function sourceData(o: KubeObject): Record<string, string> {
  const out: Record<string, string> = {};
  const r = o as { data?: Record<string, string>; stringData?: Record<string, string> };
  if (o.kind === 'Secret') for (const [k, v] of Object.entries(r.data ?? {})) out[k] = Buffer.from(v, 'base64').toString('utf8');
  else Object.assign(out, r.data ?? {});
  return out;
}

function hostOf(url: string): string {
  try {
    return new URL(url.replace(/^oci:/, 'https:')).host;
  } catch {
    return '';
  }
}

/** parseObjects reads the objects of a manifest stream (empty documents skipped). */
export function parseObjects(text: string): KubeObject[] {
  const out: KubeObject[] = [];
  for (const d of parseAllDocuments(text)) {
    if (d.errors.length > 0) throw new HelmInstallError(`invalid YAML in release manifest: ${d.errors[0]!.message}`);
    const v = d.toJS() as KubeObject | null;
    if (v && typeof v === 'object' && v.kind) out.push(v);
  }
  return out;
}

function sortObjects(objs: KubeObject[], order: readonly string[]): KubeObject[] {
  const rank = (k: string) => {
    const i = order.indexOf(k);
    return i < 0 ? order.length : i;
  };
  return objs.map((o, i) => ({ o, i })).sort((a, b) => rank(a.o.kind) - rank(b.o.kind) || a.i - b.i).map((x) => x.o);
}

function keep(o: KubeObject): boolean {
  return o.metadata.annotations?.['helm.sh/resource-policy'] === 'keep';
}

function refOf(o: KubeObject, namespace: string): { apiVersion: string; kind: string; namespace?: string; name: string } {
  return { apiVersion: o.apiVersion!, kind: o.kind, namespace: o.metadata.namespace ?? namespace, name: o.metadata.name };
}

/** withNamespace defaults a namespaced object's namespace to the release namespace (and clears it for cluster-scoped kinds). */
async function withNamespace(client: KubeClient, o: KubeObject, namespace: string): Promise<KubeObject> {
  const info = await client.resource({ apiVersion: o.apiVersion!, kind: o.kind });
  const metadata = { ...o.metadata };
  if (info.namespaced) metadata.namespace = metadata.namespace ?? namespace;
  else delete metadata.namespace;
  return { ...o, metadata };
}

/** withOwnership adds what Helm sets on every object it manages (Go: pkg/action/validate.go setMetadataVisitor). */
async function withOwnership(client: KubeClient, o: KubeObject, name: string, namespace: string): Promise<KubeObject> {
  const obj = await withNamespace(client, o, namespace);
  obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'app.kubernetes.io/managed-by': 'Helm' };
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), 'meta.helm.sh/release-name': name, 'meta.helm.sh/release-namespace': namespace };
  return obj;
}

async function deleteIfExists(client: KubeClient, ref: { apiVersion: string; kind: string; namespace?: string; name: string }, propagation?: string): Promise<void> {
  try {
    await client.delete(ref, propagation ? { propagationPolicy: (propagation[0]!.toUpperCase() + propagation.slice(1)) as 'Orphan' | 'Foreground' | 'Background' } : {});
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/** deleteAndWait deletes an object and waits (by watch) until it is gone. */
async function deleteAndWait(client: KubeClient, ref: { apiVersion: string; kind: string; namespace?: string; name: string }, timeoutMs: number): Promise<void> {
  try {
    const pending = await client.delete(ref, { propagationPolicy: 'Background' });
    if (!pending) return;
  } catch (err) {
    if (isNotFound(err)) return;
    throw err;
  }
  await waitFor(client, ref, (o) => (o === undefined ? true : undefined), timeoutMs);
}

/**
 * waitForHook waits until a hook Job completes or a hook Pod succeeds (Helm waits only for those kinds): true, or
 * the reason it failed. Other kinds are done once created.
 */
async function waitForHook(client: KubeClient, o: KubeObject, timeoutMs: number): Promise<true | string> {
  if (o.kind !== 'Job' && o.kind !== 'Pod') return true;
  const ref = { apiVersion: o.apiVersion!, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name };
  const r = await waitFor<true | string>(
    client,
    ref,
    (cur) => {
      if (!cur) return 'deleted while running';
      const st = (cur.status ?? {}) as { conditions?: { type: string; status: string; reason?: string; message?: string }[]; phase?: string };
      if (o.kind === 'Pod') return st.phase === 'Succeeded' ? true : st.phase === 'Failed' ? 'pod failed' : undefined;
      for (const c of st.conditions ?? []) {
        if (c.status !== 'True') continue;
        if (c.type === 'Complete') return true;
        if (c.type === 'Failed') return `job failed: ${c.reason ?? ''}${c.message ? ` (${c.message})` : ''}`;
      }
      return undefined;
    },
    timeoutMs,
  );
  return r ?? `timed out waiting for the condition after ${Math.round(timeoutMs / 1000)}s`;
}

/**
 * waitForReady waits, object by object, until the release's workloads are ready as Helm's kube waiter judges them
 * (Deployments, StatefulSets, ReplicaSets: ready replicas; DaemonSets: every scheduled pod ready; Pods: Ready;
 * PVCs: Bound; LoadBalancer Services: an address; Jobs complete only with waitForJobs). Throws on the timeout or a
 * failed Job. Go: helm pkg/kube/ready.go
 */
async function waitForReady(client: KubeClient, objects: KubeObject[], namespace: string, jobs: boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const o of objects) {
    const check = readiness(o.kind, jobs);
    if (!check) continue;
    const ref = refOf(o, namespace);
    const left = deadline - Date.now();
    const r = left > 0 ? await waitFor<true | string>(client, ref, (cur) => (cur ? check(cur) : undefined), left) : undefined;
    if (r === undefined) throw new HelmInstallError(`timed out waiting for ${o.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name} to be ready (options.timeout ${Math.round(timeoutMs / 1000)}s)`);
    if (r !== true) throw new HelmInstallError(`${o.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}: ${r}`);
  }
}

type Readiness = (o: KubeObject) => true | string | undefined;

function readiness(kind: string, jobs: boolean): Readiness | undefined {
  const num = (v: unknown, d = 0) => (typeof v === 'number' ? v : d);
  const spec = (o: KubeObject) => (o.spec ?? {}) as Record<string, unknown>;
  const status = (o: KubeObject) => (o.status ?? {}) as Record<string, unknown>;
  const observed = (o: KubeObject) => num(status(o).observedGeneration, -1) >= num(o.metadata.generation, 0);
  switch (kind) {
    case 'Deployment':
    case 'StatefulSet':
    case 'ReplicaSet':
      return (o) => (observed(o) && num(status(o).readyReplicas) >= num(spec(o).replicas, 1) ? true : undefined);
    case 'DaemonSet':
      return (o) => (observed(o) && num(status(o).desiredNumberScheduled, -1) >= 0 && num(status(o).numberReady) >= num(status(o).desiredNumberScheduled) ? true : undefined);
    case 'Pod':
      return (o) => {
        const st = status(o) as { phase?: string; conditions?: { type: string; status: string }[] };
        if (st.phase === 'Succeeded') return true;
        if (st.phase === 'Failed') return 'pod failed';
        return st.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
      };
    case 'PersistentVolumeClaim':
      return (o) => ((status(o) as { phase?: string }).phase === 'Bound' ? true : undefined);
    case 'Service':
      return (o) => {
        if ((spec(o) as { type?: string }).type !== 'LoadBalancer') return true;
        const ingress = ((status(o) as { loadBalancer?: { ingress?: unknown[] } }).loadBalancer?.ingress ?? []).length;
        return ingress > 0 ? true : undefined;
      };
    case 'Job':
      if (!jobs) return undefined;
      return (o) => {
        for (const c of (status(o) as { conditions?: { type: string; status: string; reason?: string }[] }).conditions ?? []) {
          if (c.status !== 'True') continue;
          if (c.type === 'Complete') return true;
          if (c.type === 'Failed') return `job failed: ${c.reason ?? ''}`;
        }
        return undefined;
      };
    default:
      return undefined;
  }
}

/** waitFor watches one object until check returns a value (or the timeout passes: undefined). */
async function waitFor<R>(client: KubeClient, ref: { apiVersion: string; kind: string; namespace?: string; name: string }, check: (o: KubeObject | undefined) => R | undefined, timeoutMs: number): Promise<R | undefined> {
  const first = await client.getIfExists<KubeObject>(ref);
  const initial = check(first);
  if (initial !== undefined) return initial;
  const ac = new AbortController();
  return new Promise<R | undefined>((resolve) => {
    let settled = false;
    const finish = (v: R | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ac.abort();
      resolve(v);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    client
      .watch<KubeObject>(
        { apiVersion: ref.apiVersion, kind: ref.kind },
        { namespace: ref.namespace, fieldSelector: `metadata.name=${ref.name}`, resourceVersion: first?.metadata.resourceVersion, signal: ac.signal },
        (ev) => {
          const v = check(ev.type === 'DELETED' ? undefined : ev.object);
          if (v !== undefined) finish(v);
        },
      )
      .then(
        (w) => w.done.catch(() => undefined).then(() => finish(undefined)),
        () => finish(undefined),
      );
  });
}

/** parseGoDuration reads a metav1.Duration string (`5m`, `1h30m`, `90s`, `500ms`) as milliseconds. */
export function parseGoDuration(s: string | undefined): number | undefined {
  if (!s) return undefined;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let seen = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * unit[m[2]!]!;
    seen += m[0].length;
  }
  return seen === s.length && seen > 0 ? total : undefined;
}
