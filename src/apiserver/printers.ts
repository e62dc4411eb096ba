// Server-side printing: the meta.k8s.io/v1 Table that `kubectl get` asks for. Columns per kind follow
// kubernetes/pkg/printers/internalversion/printers.go; custom resources use additionalPrinterColumns.
import type { PrinterColumn } from './resource.js';
import type { KubeObject } from './types.js';

/** humanDuration formats a duration like kubectl's AGE column. Go: duration.HumanDuration */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** sinceTimestamp renders the age of an RFC 3339 timestamp, "<unknown>" when absent. Go: translateTimestampSince */
export function sinceTimestamp(ts: unknown, now: number): string {
  if (typeof ts !== 'string' || ts === '') return '<unknown>';
  const t = Date.parse(ts);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const AGE_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** nameColumn is the NAME column every table starts with. */
export const nameColumn: PrinterColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: NAME_DESCRIPTION,
  priority: 0,
  cell: (o) => o.metadata?.name ?? '',
};

/** ageColumn is the AGE column (creationTimestamp as a human duration). */
export const ageColumn: PrinterColumn = {
  name: 'Age',
  type: 'string',
  format: '',
  description: AGE_DESCRIPTION,
  priority: 0,
  cell: (o, now) => sinceTimestamp(o.metadata?.creationTimestamp, now),
};

/** createdAtColumn is RBAC's CREATED AT column (a date). */
export const createdAtColumn: PrinterColumn = {
  name: 'Created At',
  type: 'date',
  format: '',
  description: AGE_DESCRIPTION,
  priority: 0,
  cell: (o) => o.metadata?.creationTimestamp ?? '',
};

/** column builds a PrinterColumn. */
export function column(
  name: string,
  type: PrinterColumn['type'],
  cell: PrinterColumn['cell'],
  o: { priority?: number; description?: string; format?: string } = {},
): PrinterColumn {
  return { name, type, format: o.format ?? '', description: o.description ?? '', priority: o.priority ?? 0, cell };
}

/** defaultColumns are NAME and AGE, what kube prints for kinds without a printer. */
export const defaultColumns: PrinterColumn[] = [nameColumn, ageColumn];

/** formatLabelSelector renders a metav1.LabelSelector like kubectl ("<none>" when empty). Go: metav1.FormatLabelSelector */
export function formatLabelSelector(selector: unknown): string {
  const sel = asRecord(selector);
  const parts = Object.entries(asRecord(sel.matchLabels))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${String(v)}`);
  for (const e of asArray(sel.matchExpressions).map(asRecord)) {
    const values = asArray(e.values).map(String).join(',');
    switch (e.operator) {
      case 'In':
        parts.push(`${e.key} in (${values})`);
        break;
      case 'NotIn':
        parts.push(`${e.key} notin (${values})`);
        break;
      case 'Exists':
        parts.push(String(e.key));
        break;
      case 'DoesNotExist':
        parts.push(`!${e.key}`);
        break;
    }
  }
  return parts.length > 0 ? parts.join(',') : '<none>';
}

/** formatMap renders a string map as "a=b,c=d" sorted by key ("<none>" when empty). */
export function formatMap(m: unknown, none = '<none>'): string {
  if (!m || typeof m !== 'object') return none;
  const entries = Object.entries(m as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? none : entries.map(([k, v]) => `${k}=${String(v)}`).join(',');
}

/** formatList joins values with commas, showing at most max and "+ N more..." like kube's printers. */
export function formatList(values: string[], max = 3, none = '<none>'): string {
  if (values.length === 0) return none;
  if (values.length <= max) return values.join(',');
  return `${values.slice(0, max).join(',')} + ${values.length - max} more...`;
}

/** asRecord views v as a JSON object (empty object when it is not one). */
export function asRecord(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** asArray views v as a JSON array (empty when it is not one). */
export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** tableRow computes the cells of one object. */
export function tableCells(columns: PrinterColumn[], obj: KubeObject, now: number): unknown[] {
  return columns.map((c) => {
    const v = c.cell(obj, now);
    return v === undefined ? null : v;
  });
}
