// nameref.ts: fixing name references after names changed (prefix, suffix, hash, namespace): every field the
// nameReference config lists in a referrer gets the current name of the one resource it referred to by an earlier
// name. Go: kustomize api/internal/accumulator/namereferencetransformer.go, api/filters/nameref/nameref.go,
// api/resmap reswrangler.go SubsetThatCouldBeReferencedByResource.
import { KustomizeError } from './errors.js';
import { applyFieldSpec, NO_CHANGE, type FieldSpec, type NameBackReference } from './fieldspec.js';
import { effectiveNamespace, gvkSelected, idString, isClusterScoped, sameEndingSubSlice, type Gvk, type ResMap, type Resource } from './resource.js';
import { isObject, resourceYaml, type JSONObject, type JSONValue } from './yaml.js';

function roleBindingNamespaces(r: Resource): Set<string> {
  const out = new Set<string>();
  if (r.kind !== 'RoleBinding') return out;
  const subjects = r.obj.subjects;
  if (!Array.isArray(subjects)) return out;
  for (const s of subjects) {
    if (isObject(s) && s.kind === 'ServiceAccount' && typeof s.namespace === 'string') out.add(s.namespace);
  }
  return out;
}

function couldBeReferencedBy(m: ResMap, referrer: Resource): Resource[] {
  const rid = referrer.curId();
  if (isClusterScoped(rid)) return m.list;
  const rbNs = roleBindingNamespaces(referrer);
  return m.list.filter((t) => {
    const id = t.curId();
    if (isClusterScoped(id)) return true;
    if (effectiveNamespace(id) === effectiveNamespace(rid)) return true;
    return rbNs.has(t.namespace);
  });
}

class RefFilter {
  constructor(
    readonly referrer: Resource,
    readonly spec: FieldSpec,
    readonly target: Gvk,
    readonly candidates: Resource[],
  ) {}

  run(): void {
    try {
      applyFieldSpec(this.referrer.obj, { ...this.spec, group: "", version: "", kind: "", create: false }, (v) => this.set(v));
    } catch (e) {
      if (e instanceof KustomizeError) {
        throw new KustomizeError(e.code, `updating name reference in '${this.spec.path}' field of '${idString(this.referrer.curId())}': ${e.message}`, { cause: e });
      }
      throw e;
    }
  }

  set(v: JSONValue): JSONValue | typeof NO_CHANGE {
    if (v === null || v === undefined) return NO_CHANGE;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const e = v[i];
        if (isObject(e)) this.setMapping(e);
        else if (e !== null) {
          const r = this.setScalar(e);
          if (r !== NO_CHANGE) v[i] = r;
        }
      }
      return NO_CHANGE;
    }
    if (isObject(v)) {
      this.setMapping(v);
      return NO_CHANGE;
    }
    return this.setScalar(v);
  }

  setScalar(v: JSONValue): JSONValue | typeof NO_CHANGE {
    const old = typeof v === 'string' ? v : String(v);
    const ref = this.select(old, this.candidates, false);
    if (!ref || ref.name === old) return NO_CHANGE;
    return ref.name;
  }

  setMapping(node: JSONObject): void {
    if (!('name' in node)) throw new KustomizeError('Invalid', "path config error; no 'name' field in node");
    let cands = this.candidates;
    if ('namespace' in node) {
      const ns = String(node.namespace);
      const byOrg = cands.filter((c) => !isClusterScoped(c.orgId()) && effectiveNamespace(c.orgId()) === ns);
      cands = byOrg.length > 0 ? byOrg : cands.filter((c) => !isClusterScoped(c.curId()) && effectiveNamespace(c.curId()) === ns);
    }
    const old = String(node.name);
    const ref = this.select(old, cands, true);
    if (!ref) return;
    if (ref.name === old && ref.namespace === '') return;
    node.name = ref.name;
    if (ref.namespace !== '') node.namespace = ref.namespace;
  }

  select(old: string, candidates: Resource[], withNs: boolean): Resource | undefined {
    let c = candidates.filter((r) => r.prev.some((id) => id.name === old));
    c = c.filter((r) => r.prev.some((id) => gvkSelected(id, this.target)));
    if (this.spec.path.endsWith('roleRef/name')) {
      const rr = this.referrer.obj.roleRef;
      if (isObject(rr) && rr.apiGroup !== undefined && rr.kind !== undefined) {
        const sel = { group: String(rr.apiGroup), kind: String(rr.kind) };
        c = c.filter((r) => r.prev.some((id) => gvkSelected(id, sel)));
      }
    }
    const rid = this.referrer.curId();
    if (!isClusterScoped(rid)) {
      c = c.filter((r) => isClusterScoped(r.curId()) || r.kind === 'ServiceAccount' || effectiveNamespace(r.curId()) === effectiveNamespace(rid));
    }
    if (c.length === 1) return c[0];
    c = c.filter((r) => affixesEqual(r, this.referrer, true));
    if (c.length > 1) c = c.filter((r) => affixesEqual(r, this.referrer, false));
    if (c.length === 1) return c[0];
    if (c.length === 0) return undefined;
    const same = c.every((r) => r.name === c[0].name && (!withNs || r.namespace === c[0].namespace));
    if (same) return c[0];
    let details = `\n**** Too many possible referral targets to referrer:\n${resourceYaml(this.referrer.obj)}\n`;
    c.forEach((r, i) => (details += `--- possible referral ${i}:\n${resourceYaml(r.obj)}\n`));
    throw new KustomizeError('Conflict', `found multiple possible referrals: ${c.map((r) => idString(r.curId())).join(', ')}\n${details}`);
  }
}

function affixesEqual(a: Resource, b: Resource, allowEmpty: boolean): boolean {
  if (allowEmpty) {
    const pe = a.prefixes.length === 0 || b.prefixes.length === 0;
    const se = a.suffixes.length === 0 || b.suffixes.length === 0;
    return (pe || sameEndingSubSlice(a.prefixes, b.prefixes)) && (se || sameEndingSubSlice(a.suffixes, b.suffixes));
  }
  return sameEndingSubSlice(a.prefixes, b.prefixes) && sameEndingSubSlice(a.suffixes, b.suffixes);
}

/** fixNameReferences is the nameReferenceTransformer over the whole build. */
export function fixNameReferences(m: ResMap, backRefs: NameBackReference[]): void {
  const orgIds = m.list.map((r) => r.orgId());
  const filters = new Map<Resource, { spec: FieldSpec; target: Gvk }[]>();
  for (const br of backRefs) {
    for (const spec of br.referrers) {
      m.list.forEach((r, i) => {
        if (!gvkSelected(orgIds[i], spec)) return;
        const list = filters.get(r) ?? [];
        list.push({ spec, target: br.gvk });
        filters.set(r, list);
      });
    }
  }
  for (const [r, list] of filters) {
    const cands = couldBeReferencedBy(m, r);
    for (const f of list) new RefFilter(r, f.spec, f.target, cands).run();
  }
}
