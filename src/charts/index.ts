// charts: chart sources — classic HTTP(S) chart repositories and OCI registries — with a content-addressed on-disk
// cache, plus `helm push` to OCI registries. Does I/O (network, cache directory); retries belong to the caller.
export { ChartSourceError, isChartSourceError, type ChartSourceErrorCode } from './errors.js';
export { ChartCache, sha256Digest, type CachedIndex } from './cache.js';
export { readTar, readTgz, readChartYaml, MAX_CHART_BYTES, type TarFile, type ArchivedChart } from './tar.js';
export { parseVersion, selectVersion, sortVersionsDescending } from './versions.js';
export { parseRepoIndex, findIndexEntry, resolveReferenceURL, indexURL, chartNameInRepository, type RepoIndex, type IndexEntry } from './repo-index.js';
export { loadRepoIndex, fetchFromRepository, type HttpChartRequest, type RepoCredentials, type FetchedChart } from './http-repo.js';
export {
  OciClient,
  parseOciReference,
  parseChallenge,
  OCI_MANIFEST_MEDIA_TYPE,
  HELM_CONFIG_MEDIA_TYPE,
  HELM_CHART_MEDIA_TYPE,
  HELM_LEGACY_CHART_MEDIA_TYPE,
  type OciReference,
  type OciManifest,
  type OciDescriptor,
  type OciClientOptions,
} from './oci.js';
export { fetchFromOci, pushChart, resolveOciTag, type OciChartRequest, type PushResult } from './oci-source.js';
export { chartMetadata, chartConfigJSON, ociAnnotations } from './chart-config.js';
export { fetchChart, ChartFetcher, ociChartRef, credentialsFromSecret, type ChartSpec, type ChartFetcherOptions } from './source.js';
export type { TLSOptions } from './http.js';
export { serveChartRepo, chartRepoIndex, chartsInDir, type ChartRepoServer, type ChartRepoServerOptions, type ServedChart } from './serve.js';
