// names.ts: the names, labels, annotations and finalizers the add-on deployer reads and writes, spelled exactly as
// addon-controller spells them, plus the few Ripple-only keys (adoption). Pure.
// Go: addon-controller lib/clusterops/clustersummary.go (GetClusterSummaryName, labels), clusterreports.go
// (GetClusterReportName), controllers/handlers_utils.go (clustersummary/deploymenttype annotations).
import type { ClusterType } from '../api/index.js';

/** FIELD_MANAGER is the server-side apply field manager of everything the deployer writes. */
export const FIELD_MANAGER = 'ripple-addon-controller';

/** ProfileKind is the kind of a profile: cluster-scoped ClusterProfile or namespaced Profile. */
export type ProfileKind = 'ClusterProfile' | 'Profile';

/** AddonFinalizers are the finalizers Sveltos puts on profiles and ClusterSummaries so deletion waits for cleanup. */
export const AddonFinalizers = {
  clusterProfile: 'clusterprofilefinalizer.projectsveltos.io',
  profile: 'profilefinalizer.projectsveltos.io',
  clusterSummary: 'clustersummaryfinalizer.projectsveltos.io',
} as const;

/** AddonLabels are the labels addon-controller puts on ClusterSummaries and ClusterReports. */
export const AddonLabels = {
  clusterProfileName: 'projectsveltos.io/cluster-profile-name',
  profileName: 'projectsveltos.io/profile-name',
  clusterName: 'projectsveltos.io/cluster-name',
  clusterType: 'projectsveltos.io/cluster-type',
} as const;

/**
 * ADOPTED_ANNOTATION marks an object that existed before the deployer first applied to it (Ripple-only). Its value
 * is the comma-separated list of subresources the deployer applied. On withdrawal such an object is released (our
 * fields and stamps removed) instead of deleted: see README "Adopted objects".
 */
export const ADOPTED_ANNOTATION = 'addons.ripple.dev/adopted';

/** REASON_RESOURCES is the `projectsveltos.io/reason` label value of objects deployed from policyRefs. */
export const REASON_RESOURCES = 'Resources';

/** clusterTypePrefix is the lower-cased cluster type used in names: `capi` or `sveltos`. Go: clusterops.GetPrefix */
export function clusterTypePrefix(type: ClusterType): string {
  return type === 'Sveltos' ? 'sveltos' : 'capi';
}

/**
 * clusterSummaryName is `<profile>-<capi|sveltos>-<cluster>` for ClusterProfiles and `p--<profile>-<type>-<cluster>`
 * for Profiles. Go: clusterops.GetClusterSummaryName
 */
export function clusterSummaryName(profileKind: ProfileKind, profileName: string, clusterType: ClusterType, clusterName: string): string {
  const base = `${profileName}-${clusterTypePrefix(clusterType)}-${clusterName}`;
  return profileKind === 'ClusterProfile' ? base : `p--${base}`;
}

/** clusterReportName is `<profile>--<type>--<cluster>` (`p--` prefix for Profiles). Go: clusterops.GetClusterReportName */
export function clusterReportName(profileKind: ProfileKind, profileName: string, clusterType: ClusterType, clusterName: string): string {
  const base = `${profileName}--${clusterTypePrefix(clusterType)}--${clusterName}`;
  return profileKind === 'ClusterProfile' ? base : `p--${base}`;
}

/** clusterSummaryAnnotationValue is the `projectsveltos.io/clustersummary` stamp: `<type>-<clusterNamespace>-<clusterName>`. */
export function clusterSummaryAnnotationValue(clusterType: ClusterType, clusterNamespace: string, clusterName: string): string {
  return `${clusterTypePrefix(clusterType)}-${clusterNamespace}-${clusterName}`;
}

/** profileLabelKey is the ClusterSummary label naming its profile (cluster-profile-name or profile-name). */
export function profileLabelKey(kind: ProfileKind): string {
  return kind === 'ClusterProfile' ? AddonLabels.clusterProfileName : AddonLabels.profileName;
}

/** profileKey identifies a profile in queues and indexes: `ClusterProfile:/name` or `Profile:ns/name`. */
export function profileKey(kind: ProfileKind, namespace: string | undefined, name: string): string {
  return `${kind}:${kind === 'Profile' ? (namespace ?? '') : ''}/${name}`;
}

/** parseProfileKey splits a profileKey. */
export function parseProfileKey(key: string): { kind: ProfileKind; namespace: string; name: string } | undefined {
  const m = /^(ClusterProfile|Profile):([^/]*)\/(.+)$/.exec(key);
  if (!m) return undefined;
  return { kind: m[1] as ProfileKind, namespace: m[2], name: m[3] };
}

/** gvkString is Sveltos' deployedGroupVersionKind form `Kind.version.group` (core group empty: `Service.v1.`). */
export function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return `${kind}.${version}.${group}`;
}

/** parseGvkString turns `Kind.version.group` back into apiVersion and kind (undefined when malformed). Go: schema.ParseKindArg */
export function parseGvkString(s: string): { apiVersion: string; kind: string } | undefined {
  const first = s.indexOf('.');
  if (first <= 0) return undefined;
  const kind = s.slice(0, first);
  const rest = s.slice(first + 1);
  const second = rest.indexOf('.');
  if (second <= 0) return undefined;
  const version = rest.slice(0, second);
  const group = rest.slice(second + 1);
  return { apiVersion: group === '' ? version : `${group}/${version}`, kind };
}
