// oci-source.ts: charts in OCI registries — pull (tag chosen like Helm: an exact semver version is the tag, else the
// highest tag a constraint accepts), verified and cached by the chart layer's digest; and push, producing the same
// manifest `helm push` does (pkg/registry/client.go Push; oras-go v1 content.GenerateManifest).
import { ChartCache } from './cache.js';
import { ChartSourceError, isChartSourceError } from './errors.js';
import { chartConfigJSON, ociAnnotations } from './chart-config.js';
import {
  HELM_CHART_MEDIA_TYPE,
  HELM_CONFIG_MEDIA_TYPE,
  HELM_LEGACY_CHART_MEDIA_TYPE,
  OciClient,
  parseOciReference,
  type OciClientOptions,
  type OciDescriptor,
} from './oci.js';
import type { FetchedChart } from './http-repo.js';
import { readChartYaml } from './tar.js';
import { constraintError, parseVersion, selectVersion, sortVersionsDescending } from './versions.js';

/** OciChartRequest names a chart in a registry: `oci://HOST/PATH/NAME` and a version, constraint or "". */
export interface OciChartRequest extends OciClientOptions {
  ref: string;
  version: string;
}

/**
 * resolveOciTag picks the tag to pull, as Helm's ChartDownloader.getOciURI: a valid semver version is used as the
 * tag directly (no listing); otherwise the tags are listed (`_` read back as `+`) and the best match is taken.
 */
export async function resolveOciTag(client: OciClient, repository: string, version: string, what: string): Promise<string> {
  if (version !== '' && parseVersion(version)) return version.replaceAll('+', '_');
  const bad = constraintError(version);
  if (bad !== undefined) throw new ChartSourceError('VersionNotFound', `${what}: "${version}" is not a valid version or constraint: ${bad}`);
  const tags = sortVersionsDescending(
    (await client.tags(repository, what)).map((t) => t.replaceAll('_', '+')).filter((t) => parseVersion(t)),
    (t) => t,
  );
  if (tags.length === 0) throw new ChartSourceError('VersionNotFound', `${what}: unable to locate any tags in provided repository`);
  const tag = selectVersion(tags, version, (t) => t);
  if (tag === undefined) throw new ChartSourceError('VersionNotFound', `${what}: could not locate a version matching provided version string ${version || '(latest stable)'} (tags: ${tags.slice(0, 10).join(', ')})`);
  return tag.replaceAll('+', '_');
}

/**
 * fetchFromOci pulls (or finds in the cache) a chart from an OCI registry. clientFor supplies a long-lived client
 * for the registry (its Bearer tokens are reused across pulls); by default each pull makes its own.
 */
export async function fetchFromOci(req: OciChartRequest, cache: ChartCache, clientFor?: (registry: string) => OciClient): Promise<FetchedChart> {
  const ref = parseOciReference(req.ref);
  const client = clientFor?.(ref.registry) ?? new OciClient(ref.registry, req);
  const base = `chart oci://${ref.registry}/${ref.repository}`;
  const tag = ref.tag ?? (await resolveOciTag(client, ref.repository, req.version, base));
  const what = `${base}:${tag}`;
  const { manifest, digest: manifestDigest } = await client.manifest(ref.repository, tag, what).catch(async (e: unknown) => {
    throw isChartSourceError(e, 'VersionNotFound') ? await explainMissingTag(client, ref.repository, e, what) : e;
  });
  if (manifest.config?.mediaType !== HELM_CONFIG_MEDIA_TYPE) {
    throw new ChartSourceError('BadChart', `${what}: not a Helm chart (config media type ${manifest.config?.mediaType ?? 'missing'}, want ${HELM_CONFIG_MEDIA_TYPE})`);
  }
  const layer = manifest.layers.find((l) => l.mediaType === HELM_CHART_MEDIA_TYPE || l.mediaType === HELM_LEGACY_CHART_MEDIA_TYPE);
  if (!layer) throw new ChartSourceError('BadChart', `${what}: manifest does not contain a layer with mediatype ${HELM_CHART_MEDIA_TYPE}`);
  const version = tag.replaceAll('_', '+');
  const name = ref.repository.split('/').at(-1)!;
  if (/^sha256:[a-f0-9]{64}$/.test(layer.digest) && (await cache.has(layer.digest))) {
    return { path: cache.pathOf(layer.digest), digest: layer.digest, name, version, source: `oci://${ref.registry}/${ref.repository}:${tag}`, manifestDigest, cached: true };
  }
  const bytes = await client.blob(ref.repository, layer, what);
  const chart = readChartYaml(bytes, what);
  await cache.put(bytes);
  return { path: cache.pathOf(layer.digest), digest: layer.digest, name: chart.name, version: chart.version, source: `oci://${ref.registry}/${ref.repository}:${tag}`, manifestDigest, cached: false };
}

// explainMissingTag tells a missing chart from a missing version (registries answer MANIFEST_UNKNOWN for both) by
// listing the repository's tags, and names the versions that do exist.
async function explainMissingTag(client: OciClient, repository: string, e: ChartSourceError, what: string): Promise<ChartSourceError> {
  let tags: string[];
  try {
    tags = await client.tags(repository, what);
  } catch (listing) {
    if (isChartSourceError(listing, 'ChartNotFound')) return listing;
    return e;
  }
  const versions = sortVersionsDescending(tags.map((t) => t.replaceAll('_', '+')), (t) => t);
  return new ChartSourceError('VersionNotFound', `${e.message}; available versions: ${versions.slice(0, 10).join(', ') || 'none'}`, { cause: e });
}

/** PushResult is what `helm push` reports: the reference and the manifest digest. */
export interface PushResult {
  ref: string;
  manifestDigest: string;
  chartDigest: string;
  name: string;
  version: string;
}

/**
 * pushChart uploads a chart archive to `oci://HOST/PATH` as `HOST/PATH/NAME:VERSION` (Helm's layout): the chart
 * layer, the config (Chart.yaml as chart.Metadata JSON) and the manifest with Helm's OCI annotations.
 * createdAt is the `org.opencontainers.image.created` value (RFC 3339), passed in so that a push is reproducible.
 */
export async function pushChart(archive: Uint8Array, target: string, opts: OciClientOptions & { createdAt: string }): Promise<PushResult> {
  const chart = readChartYaml(archive, 'chart archive');
  if (!target.startsWith('oci://')) throw new ChartSourceError('ChartNotFound', `push target ${target} must be an oci:// reference`);
  const base = parseOciReference(target.replace(/\/+$/, ''));
  if (base.tag !== undefined) throw new ChartSourceError('ChartNotFound', `push target ${target} must not have a tag: the chart's version is the tag`);
  const repository = `${base.repository}/${chart.name}`;
  const tag = chart.version.replaceAll('+', '_');
  const ref = `${base.registry}/${repository}:${tag}`;
  parseOciReference(`oci://${ref}`); // the chart name must be a valid repository component
  const what = `push of ${ref}`;
  const client = new OciClient(base.registry, opts);
  const config = Buffer.from(chartConfigJSON(chart.chartYaml), 'utf8');
  const layerDesc: OciDescriptor = { ...(await client.pushBlob(repository, archive, what)), mediaType: HELM_CHART_MEDIA_TYPE };
  const configDesc: OciDescriptor = { ...(await client.pushBlob(repository, config, what)), mediaType: HELM_CONFIG_MEDIA_TYPE };
  const manifest = Buffer.from(manifestJSON(configDesc, [layerDesc], ociAnnotations(chart.chartYaml, opts.createdAt)), 'utf8');
  const manifestDigest = await client.pushManifest(repository, tag, manifest, what);
  return { ref, manifestDigest, chartDigest: layerDesc.digest, name: chart.name, version: chart.version };
}

// manifestJSON is json.Marshal(ocispec.Manifest) as oras-go v1 builds it: schemaVersion, config, layers, annotations
// (sorted keys); descriptors carry mediaType, digest, size only.
function manifestJSON(config: OciDescriptor, layers: OciDescriptor[], annotations: Record<string, string>): string {
  const desc = (d: OciDescriptor) => ({ mediaType: d.mediaType, digest: d.digest, size: d.size });
  const sorted = Object.fromEntries(Object.entries(annotations).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const m: Record<string, unknown> = { schemaVersion: 2, config: desc(config), layers: layers.map(desc) };
  if (Object.keys(sorted).length > 0) m.annotations = sorted;
  return goSafeJSON(m);
}

/** goSafeJSON is JSON.stringify plus Go's HTML-safe escapes, so our JSON bytes equal encoding/json's. */
export function goSafeJSON(v: unknown): string {
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
