// chart-config.ts: what an OCI chart push derives from Chart.yaml — the config blob (json.Marshal of Helm's
// chart.Metadata: its fields, its order, omitempty; pkg/chart/metadata.go) and the manifest annotations
// (pkg/registry/util.go generateOCIAnnotations).

const STRING_FIELDS = new Set(['name', 'home', 'version', 'description', 'icon', 'apiVersion', 'condition', 'tags', 'appVersion', 'kubeVersion', 'type']);
// chart.Metadata's JSON fields in declaration order.
const METADATA_ORDER = ['name', 'home', 'sources', 'version', 'description', 'keywords', 'maintainers', 'icon', 'apiVersion', 'condition', 'tags', 'appVersion', 'deprecated', 'annotations', 'kubeVersion', 'dependencies', 'type'];
const DEPENDENCY_ORDER = ['name', 'version', 'repository', 'condition', 'tags', 'enabled', 'import-values', 'alias'];

const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));
const strings = (v: unknown) => (Array.isArray(v) ? v.map(text) : []);

function metadataField(k: string, v: unknown): unknown {
  if (STRING_FIELDS.has(k)) return text(v) || undefined;
  switch (k) {
    case 'sources':
    case 'keywords': {
      const a = strings(v);
      return a.length > 0 ? a : undefined;
    }
    case 'maintainers': {
      if (!Array.isArray(v) || v.length === 0) return undefined;
      return v.map((m: Record<string, unknown>) => {
        const o: Record<string, string> = {};
        for (const f of ['name', 'email', 'url']) if (text(m?.[f])) o[f] = text(m[f]);
        return o;
      });
    }
    case 'deprecated':
      return v === true ? true : undefined;
    case 'annotations': {
      if (typeof v !== 'object' || v === null) return undefined;
      const entries = Object.entries(v as Record<string, unknown>).map(([a, b]) => [a, text(b)] as const);
      return entries.length > 0 ? Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : undefined;
    }
    case 'dependencies': {
      if (!Array.isArray(v) || v.length === 0) return undefined;
      return v.map((d: Record<string, unknown>) => {
        const o: Record<string, unknown> = {};
        for (const f of DEPENDENCY_ORDER) {
          const x = d?.[f];
          if (f === 'name' || f === 'repository') o[f] = text(x);
          else if (f === 'tags' || f === 'import-values') {
            if (Array.isArray(x) && x.length > 0) o[f] = f === 'tags' ? strings(x) : x;
          } else if (f === 'enabled') {
            if (x === true) o[f] = true;
          } else if (text(x)) o[f] = text(x);
        }
        return o;
      });
    }
  }
  return undefined;
}

/** chartMetadata is Chart.yaml reduced to chart.Metadata, in Go's field order (apiVersion defaults to v1 as Helm's loader does). */
export function chartMetadata(chartYaml: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of METADATA_ORDER) {
    const v = metadataField(k, k === 'apiVersion' ? chartYaml.apiVersion || 'v1' : chartYaml[k]);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** chartConfigJSON is the OCI config blob `helm push` writes: json.Marshal(chart.Metadata). */
export function chartConfigJSON(chartYaml: Record<string, unknown>): string {
  return JSON.stringify(chartMetadata(chartYaml)).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** ociAnnotations are the manifest annotations `helm push` sets from Chart.yaml, plus the chart's own annotations. */
export function ociAnnotations(chartYaml: Record<string, unknown>, createdAt: string): Record<string, string> {
  const meta = chartMetadata(chartYaml) as Record<string, unknown>;
  const out: Record<string, string> = {};
  const add = (k: string, v: unknown) => {
    if (text(v).trim() !== '') out[k] = text(v);
  };
  add('org.opencontainers.image.description', meta.description);
  add('org.opencontainers.image.title', meta.name);
  add('org.opencontainers.image.version', meta.version);
  add('org.opencontainers.image.url', meta.home);
  add('org.opencontainers.image.created', createdAt);
  const sources = (meta.sources as string[] | undefined) ?? [];
  if (sources.length > 0) add('org.opencontainers.image.source', sources[0]);
  const maintainers = (meta.maintainers as { name?: string; email?: string }[] | undefined) ?? [];
  if (maintainers.length > 0) {
    add('org.opencontainers.image.authors', maintainers.map((m) => `${m.name ?? ''}${m.email ? ` (${m.email})` : ''}`).join(', '));
  }
  for (const [k, v] of Object.entries((meta.annotations as Record<string, string> | undefined) ?? {})) {
    if (k === 'org.opencontainers.image.version' || k === 'org.opencontainers.image.title') continue;
    out[k] = v;
  }
  return out;
}
