// versions.ts: choosing a chart version as Helm does — an exact version first, else the highest version that a
// Masterminds/semver v3 constraint accepts (`>=1.2 <2`, `~1.2`, `^1.2`, `1.2.x`, `||`); an empty request means
// the latest stable version (a prerelease only matches a constraint that names a prerelease).
// Go: pkg/repo/index.go IndexFile.Get and SortEntries; pkg/registry/util.go GetTagMatchingVersionOrConstraint.
import { newVersion, parseSemverConstraint, type SemverVersion } from '../funcs/index.js';

/** parseVersion is semver.NewVersion (loose: `v1`, `1.2` are valid), or undefined for a non-semver string. */
export function parseVersion(v: string): SemverVersion | undefined {
  try {
    return newVersion(v);
  } catch {
    return undefined;
  }
}

/** constraintError returns Masterminds' message when the requested version is not a valid constraint. */
export function constraintError(requested: string): string | undefined {
  if (requested === '') return undefined;
  try {
    parseSemverConstraint(requested);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** sortVersionsDescending orders version strings highest first; strings that are not semver go last, in order. */
export function sortVersionsDescending<T>(items: readonly T[], versionOf: (t: T) => string): T[] {
  const parsed = items.map((t, i) => ({ t, i, v: parseVersion(versionOf(t)) }));
  parsed.sort((a, b) => {
    if (a.v && b.v) return b.v.compare(a.v) || a.i - b.i;
    if (a.v) return -1;
    if (b.v) return 1;
    return a.i - b.i;
  });
  return parsed.map((p) => p.t);
}

/**
 * selectVersion picks from candidates (sorted highest first) the one Helm would: an exact string match of the
 * requested version, else the first whose version satisfies the constraint (`*` when nothing was requested).
 * Throws the constraint's parse error for an invalid request.
 */
export function selectVersion<T>(candidates: readonly T[], requested: string, versionOf: (t: T) => string): T | undefined {
  const check = parseSemverConstraint(requested === '' ? '*' : requested);
  if (requested !== '') {
    const exact = candidates.find((c) => versionOf(c) === requested);
    if (exact !== undefined) return exact;
  }
  return candidates.find((c) => {
    const v = parseVersion(versionOf(c));
    return v !== undefined && check(v);
  });
}
