// render.ts: the deploy-stage template engine — `projectsveltos.io/template` policies rendered with Go text/template,
// missingkey=error, libsveltos' SveltosFuncMap plus addon-controller's identifier-based getResource/copy/getField/
// setField/removeField, and the data `.Cluster`, `.KubeadmControlPlane`, `.InfrastructureProvider`, `.MgmtResources`;
// and the cluster templates of reference names (html/template, `.Cluster`, `.ClusterNamespace`, `.ClusterName`).
// Go: addon-controller controllers/template_instantiation.go instantiateTemplateValues;
// libsveltos lib/template GetReferenceResourceName / GetReferenceResourceNamespace
import { addonFuncMap, renderClusterTemplate, type FuncOptions } from '../funcs/index.js';
import { decodeJSON, DEFAULT_EXEC_BUDGET, GoStruct, parseCached, TemplateError, type ExecBudget, type FuncMap, type GoMap, type GoValue } from '../gotemplate/index.js';

/** RenderResult is rendered text, or the template error (Go's message: name, line, column, cause). */
export type RenderResult = { ok: true; text: string } | { ok: false; message: string };

/** toGoData decodes a Kubernetes object the way client-go's unstructured decoder does (integers int64). */
export function toGoData(obj: unknown): GoValue {
  return decodeJSON(JSON.stringify(obj ?? null), { numbers: 'int64' });
}

/** PolicyData is what a policy template sees (addon-controller's currentClusterObjects). */
export interface PolicyData {
  /** The SveltosCluster or CAPI Cluster object. */
  cluster: unknown;
  /** CAPI only: the control plane and infrastructure objects the Cluster references (absent: empty). */
  kubeadmControlPlane?: unknown;
  infrastructureProvider?: unknown;
  /** templateResourceRefs identifier → management-cluster object. */
  mgmtResources: Readonly<Record<string, unknown>>;
}

/**
 * PolicyRenderer renders policy templates. It holds ONE function map for its lifetime so parsed templates are
 * cached (gotemplate's parseCached keys on the map's identity): the identifier-based functions read the current
 * render's `.MgmtResources` through a slot that render() fills for the duration of one synchronous execution.
 */
export class PolicyRenderer {
  private current: GoMap = {};
  private readonly funcs: FuncMap;
  /** Every deploy-time render runs under gotemplate's default budget, timed with the deployer's clock. */
  private readonly budget: ExecBudget;

  constructor(funcOptions: FuncOptions) {
    const clock = funcOptions.clock;
    this.budget = clock ? { ...DEFAULT_EXEC_BUDGET, clock: () => clock.now() } : DEFAULT_EXEC_BUDGET;
    const slot = () => this.current;
    // A view over the current render's resources: the funcs see `Object.hasOwn(view, id)` / `view[id]` of it.
    const view = new Proxy({} as GoMap, {
      get: (_t, k) => (typeof k === 'string' ? slot()[k] : undefined),
      has: (_t, k) => typeof k === 'string' && Object.hasOwn(slot(), k),
      getOwnPropertyDescriptor: (_t, k) => (typeof k === 'string' ? Object.getOwnPropertyDescriptor(slot(), k) : undefined),
      ownKeys: () => Reflect.ownKeys(slot()),
    });
    this.funcs = addonFuncMap(funcOptions, view);
  }

  /**
   * dataFor builds the template dot for one ClusterSummary render. Build it once per render pass: templates may
   * mutate `.MgmtResources` entries (getResource strips fields in place, as in Go) and later keys see that.
   */
  dataFor(d: PolicyData): GoStruct {
    const mgmt: GoMap = {};
    for (const [id, obj] of Object.entries(d.mgmtResources)) mgmt[id] = toGoData(obj);
    return new GoStruct('controllers.currentClusterObjects', {
      Cluster: d.cluster === undefined ? {} : toGoData(d.cluster),
      KubeadmControlPlane: d.kubeadmControlPlane === undefined ? {} : toGoData(d.kubeadmControlPlane),
      InfrastructureProvider: d.infrastructureProvider === undefined ? {} : toGoData(d.infrastructureProvider),
      MgmtResources: mgmt,
    });
  }

  /** renderData executes a template with any Go-shaped dot (no .MgmtResources for the identifier functions). */
  renderData(name: string, text: string, data: GoValue): RenderResult {
    let tmpl;
    try {
      tmpl = parseCached(name, text, { funcs: this.funcs, missingKey: 'error' });
      return { ok: true, text: tmpl.execute(data, this.budget) };
    } catch (err) {
      if (err instanceof TemplateError) return { ok: false, message: err.message };
      throw err;
    }
  }

  /** render executes one template text with data from dataFor (same object for every key of one pass). */
  render(name: string, text: string, data: GoStruct): RenderResult {
    let tmpl;
    try {
      tmpl = parseCached(name, text, { funcs: this.funcs, missingKey: 'error' });
    } catch (err) {
      if (err instanceof TemplateError) return { ok: false, message: err.message };
      throw err;
    }
    const mgmt = data.fields.MgmtResources;
    this.current = mgmt !== null && typeof mgmt === 'object' ? (mgmt as GoMap) : {};
    try {
      return { ok: true, text: tmpl.execute(data, this.budget) };
    } catch (err) {
      if (err instanceof TemplateError) return { ok: false, message: err.message };
      throw err;
    } finally {
      this.current = {};
    }
  }
}

/**
 * renderValues executes a template whose dot is a plain string map (Kustomize substitution values: Sveltos renders
 * every object of a kustomization with the values as data, missingkey=error).
 */
export function renderWithValues(renderer: PolicyRenderer, name: string, text: string, values: Readonly<Record<string, string>>): RenderResult {
  return renderer.renderData(name, text, { ...values });
}

/** ClusterNames is the data of a reference-name template. */
export interface ClusterNames {
  cluster: unknown;
  clusterNamespace: string;
  clusterName: string;
}

/**
 * renderReferenceName renders a templated name or namespace of a policyRef / templateResourceRef with cluster data
 * (html/template, like libsveltos). Plain text without `{{` is returned as is; an empty template renders to the
 * cluster namespace (libsveltos), which is what an empty namespace means anyway.
 */
export function renderReferenceName(what: string, text: string, c: ClusterNames, funcOptions: FuncOptions): RenderResult {
  if (!text.includes('{{')) return { ok: true, text: text === '' ? c.clusterNamespace : text };
  try {
    return { ok: true, text: renderClusterTemplate(what, text, { Cluster: toGoData(c.cluster), ClusterNamespace: c.clusterNamespace, ClusterName: c.clusterName }, funcOptions) };
  } catch (err) {
    if (err instanceof TemplateError) return { ok: false, message: err.message };
    throw err;
  }
}
