// engine.ts: template rendering. Go: pkg/engine/engine.go — one template set ("gotpl") holding every template of
// the chart and its subcharts, parsed deepest path first, executed with per-chart values; include, tpl, required,
// fail and lookup bound per render; "<no value>" removed; Helm's parse and execution error texts.
import {
  GoInt,
  GoStruct,
  parseCached,
  quote,
  Template,
  TemplateError,
  withGoMethods,
  withGoType,
  type FuncMap,
  type GoFunc,
  type GoMap,
  type GoStringer,
  type GoValue,
} from '../gotemplate/index.js';
import { defineFunc, goError, helmFuncMap, type FuncOptions } from '../funcs/index.js';
import { baseName, decodeText, type Chart, type ChartFile, type Metadata } from './chart.js';
import { HelmError } from './errors.js';
import { newFiles } from './files.js';
import { newMap, tryTable } from './values.js';

/** KubeVersion is .Capabilities.KubeVersion. */
export interface KubeVersion {
  version: string;
  major: string;
  minor: string;
}

/** HelmVersion is .Capabilities.HelmVersion (Helm's version.BuildInfo). */
export interface HelmVersion {
  version: string;
  gitCommit: string;
  gitTreeState: string;
  goVersion: string;
}

/** Capabilities is .Capabilities: what the target cluster (or `--kube-version`/`--api-versions`) offers. */
export interface Capabilities {
  kubeVersion: KubeVersion;
  apiVersions: readonly string[];
  helmVersion: HelmVersion;
}

/** ReleaseOptions is .Release (Helm's chartutil.ReleaseOptions). */
export interface ReleaseOptions {
  name: string;
  namespace: string;
  revision: number;
  isUpgrade: boolean;
  isInstall: boolean;
}

/**
 * LookupPort serves the `lookup` template function: (apiVersion, kind, namespace, name) → the object, or for an
 * empty name the list (`{items: [...]}`), or an empty map when nothing is found. It is synchronous because
 * templates are: back it with a cache. Throwing an Error makes the template fail with its message.
 */
export type LookupPort = (apiVersion: string, kind: string, namespace: string, name: string) => GoMap;

/** EngineOptions configure one render. */
export interface EngineOptions {
  /** lintMode: required and fail do not fail (Helm's Engine.LintMode). */
  lintMode?: boolean;
  /** lookup: the cluster behind `lookup`; absent, lookup returns an empty map as in `helm template`. */
  lookup?: LookupPort;
  /** info receives lint mode's "[INFO] …" messages. */
  info?: (message: string) => void;
  /**
   * funcs: the clock (now, date, genCA, …) and randomness (randAlphaNum, genPrivateKey, …) Sprig functions use;
   * without a clock they fail, naming the option. Keep one object per process: function maps are cached by it.
   */
  funcs?: FuncOptions;
}

const WARN_START = 'HELM_ERR_START';
const WARN_END = 'HELM_ERR_END';
const RECURSION_MAX = 1000;
const warnRegex = /HELM_ERR_START([\s\S]*)HELM_ERR_END/;

const warnWrap = (w: string) => WARN_START + w + WARN_END;

// One options object, so funcs' per-options cache builds Helm's function map once per process.
const FUNC_OPTIONS = {};

// Parsing needs only the function names; the functions bound per render are placeholders here.
const placeholder = (name: string, sig: string) => defineFunc(name, sig, () => '');
const RENDER_FUNC_SIGS: Record<string, string> = {
  include: '(string, interface {}) (string, error)',
  tpl: '(string, interface {}) (string, error)',
  required: '(string, interface {}) (interface {}, error)',
  fail: '(string) (string, error)',
  lookup: '(string, string, string, string) (map[string]interface {}, error)',
};
const parseFuncsCache = new WeakMap<FuncOptions, FuncMap>();
function getParseFuncs(opts: FuncOptions = FUNC_OPTIONS): FuncMap {
  let pf = parseFuncsCache.get(opts);
  if (pf === undefined) {
    const m: Record<string, GoFunc> = { ...helmFuncMap(opts) };
    for (const [n, s] of Object.entries(RENDER_FUNC_SIGS)) m[n] = placeholder(n, s);
    parseFuncsCache.set(opts, (pf = Object.freeze(m)));
  }
  return pf;
}

/** kubeVersionValue is chartutil.KubeVersion: fields Version/Major/Minor, methods String and GitVersion. */
function kubeVersionValue(kv: KubeVersion): GoStringer {
  return {
    // %v of the struct value (what functions see); String() on *KubeVersion is what an action prints.
    goString: () => `{${kv.version} ${kv.major} ${kv.minor}}`,
    goTemplateString: () => kv.version,
    goTypeName: () => 'chartutil.KubeVersion',
    goMethod: (name: string) => {
      switch (name) {
        case 'Version':
        case 'String':
        case 'GitVersion':
          return kv.version;
        case 'Major':
          return kv.major;
        case 'Minor':
          return kv.minor;
      }
      return undefined;
    },
  };
}

/** capabilitiesValue is .Capabilities as templates see it. */
export function capabilitiesValue(caps: Capabilities): GoValue {
  const list = withGoType([...caps.apiVersions], 'chartutil.VersionSet');
  const has = defineFunc('Has', '(string) bool', (v: string) => list.includes(v));
  withGoMethods(list, (n) => (n === 'Has' ? has : undefined));
  const hv = caps.helmVersion;
  return new GoStruct('*chartutil.Capabilities', {
    KubeVersion: kubeVersionValue(caps.kubeVersion),
    APIVersions: list,
    HelmVersion: new GoStruct('version.BuildInfo', { Version: hv.version, GitCommit: hv.gitCommit, GitTreeState: hv.gitTreeState, GoVersion: hv.goVersion }),
  });
}

function strList(v: string[] | null): GoValue {
  return v === null ? null : withGoType([...v], '[]string');
}

/** chartValue is .Chart: chart.Metadata's fields plus IsRoot. */
export function chartValue(md: Metadata, isRoot: boolean): GoValue {
  const annotations = withGoType(newMap(), 'map[string]string');
  if (md.annotations) Object.assign(annotations, md.annotations);
  return new GoStruct('struct { chart.Metadata; IsRoot bool }', {
    Name: md.name,
    Home: md.home,
    Sources: strList(md.sources),
    Version: md.version,
    Description: md.description,
    Keywords: strList(md.keywords),
    Maintainers: md.maintainers === null ? null : withGoType(md.maintainers.map((m) => (m === null ? null : new GoStruct('*chart.Maintainer', { Name: m.name, Email: m.email, URL: m.url }))), '[]*chart.Maintainer'),
    Icon: md.icon,
    APIVersion: md.apiVersion,
    Condition: md.condition,
    Tags: md.tags,
    AppVersion: md.appVersion,
    Deprecated: md.deprecated,
    Annotations: annotations,
    KubeVersion: md.kubeVersion,
    Dependencies:
      md.dependencies === null
        ? null
        : withGoType(
            md.dependencies.map((d) =>
              d === null
                ? null
                : new GoStruct('*chart.Dependency', {
                    Name: d.name,
                    Version: d.version,
                    Repository: d.repository,
                    Condition: d.condition,
                    Tags: strList(d.tags),
                    Enabled: d.enabled,
                    ImportValues: d.importValues,
                    Alias: d.alias,
                  }),
            ),
            '[]*chart.Dependency',
          ),
    Type: md.type,
    IsRoot: isRoot,
  });
}

/** RenderValues is the top-level data Helm renders with (chartutil.ToRenderValues' result). */
export interface RenderValues {
  values: GoMap;
  release: ReleaseOptions;
  capabilities: Capabilities;
}

interface Renderable {
  tpl: string;
  vals: GoMap;
  basePath: string;
}

function recAllTpls(c: Chart, templates: Map<string, Renderable>, vals: GoMap): GoMap {
  const subCharts = newMap();
  const next = newMap();
  next.Chart = chartValue(c.metadata!, c.isRoot());
  next.Files = newFiles(c.files);
  next.Release = vals.Release;
  next.Capabilities = vals.Capabilities;
  next.Values = newMap();
  next.Subcharts = subCharts;
  if (c.isRoot()) next.Values = vals.Values;
  else {
    const vs = tryTable(vals, 'Values.' + c.name());
    if (vs !== undefined) next.Values = vs;
  }
  for (const child of c.dependencies) subCharts[child.name()] = recAllTpls(child, templates, next);
  const parentID = c.chartFullPath();
  const library = (c.metadata!.type ?? '').toLowerCase() === 'library';
  for (const t of c.templates) {
    if (library && !baseName(t.name).startsWith('_')) continue;
    templates.set(parentID + '/' + t.name, { tpl: templateText(t), vals: next, basePath: parentID + '/templates' });
  }
  return next;
}

// Template files are decoded once per file object (charts are loaded once and rendered many times).
const textCache = new WeakMap<ChartFile, string>();
function templateText(f: ChartFile): string {
  let t = textCache.get(f);
  if (t === undefined) textCache.set(f, (t = decodeText(f.data)));
  return t;
}

/** sortTemplates orders template names deepest path first, then reverse lexically (Go: sort.Reverse(byPathLen)). */
function sortTemplates(names: string[]): string[] {
  const depth = (s: string) => {
    let n = 0;
    for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 47) n++;
    return n;
  };
  return names
    .map((n) => ({ n, d: depth(n) }))
    .sort((a, b) => (a.d !== b.d ? b.d - a.d : a.n < b.n ? 1 : a.n > b.n ? -1 : 0))
    .map((e) => e.n);
}

function funcErrorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function cleanupParseError(filename: string, err: string): string {
  const tokens = err.split(': ');
  if (tokens.length === 1) return `parse error in (${filename}): ${err}`;
  return `parse error at (${tokens[1]}): ${tokens[tokens.length - 1]}`;
}

function cleanupExecError(filename: string, err: string): string {
  const i1 = err.indexOf(': ');
  const i2 = i1 < 0 ? -1 : err.indexOf(': ', i1 + 2);
  if (i2 < 0) return `execution error in (${filename}): ${err}`;
  const location = err.slice(i1 + 2, i2);
  const m = warnRegex.exec(err.slice(i2 + 2));
  if (m) return `execution error at (${location}): ${m[1]}`;
  return err;
}

/**
 * renderTemplates is Engine.Render: every template of the chart tree rendered with the values (the result of
 * toRenderValues), keyed by template path ("chart/templates/x.yaml"); partials are not in the result.
 * Throws HelmError('render', Helm's message, rendered=true).
 */
export function renderTemplates(chart: Chart, top: RenderValues, opts: EngineOptions = {}): Map<string, string> {
  const vals = newMap();
  vals.Values = top.values;
  vals.Capabilities = capabilitiesValue(top.capabilities);
  const rel = newMap();
  rel.Name = top.release.name;
  rel.Namespace = top.release.namespace;
  rel.IsUpgrade = top.release.isUpgrade;
  rel.IsInstall = top.release.isInstall;
  rel.Revision = new GoInt('int', BigInt(top.release.revision));
  rel.Service = 'Helm';
  vals.Release = rel;
  const tpls = new Map<string, Renderable>();
  recAllTpls(chart, tpls, vals);
  return render(tpls, opts);
}

const baseTemplates = new WeakMap<FuncOptions, Template>();

function render(tpls: Map<string, Renderable>, opts: EngineOptions): Map<string, string> {
  const includedNames = new Map<string, number>();
  const info = opts.info ?? (() => {});
  const lintMode = opts.lintMode === true;

  const includeFun = (t: Template): GoFunc =>
    defineFunc('include', RENDER_FUNC_SIGS.include, (name: string, data: GoValue) => {
      const v = includedNames.get(name);
      if (v !== undefined) {
        if (v > RECURSION_MAX) throw goError(`rendering template has a nested reference name: ${name}: unable to execute template`);
        includedNames.set(name, v + 1);
      } else includedNames.set(name, 1);
      try {
        return t.executeTemplate(name, data);
      } catch (e) {
        if (e instanceof TemplateError) throw goError(e.message);
        // JavaScript's stack ends before Helm's 1000 nested includes: report it with Helm's words (the chain of
        // "error calling include" before it is shorter than Helm's).
        if (e instanceof RangeError) throw goError(`rendering template has a nested reference name: ${name}: unable to execute template`);
        throw e;
      } finally {
        includedNames.set(name, includedNames.get(name)! - 1);
      }
    });

  const tplFun = (parent: Template): GoFunc =>
    defineFunc('tpl', RENDER_FUNC_SIGS.tpl, (text: string, data: GoValue) => {
      const t = parent.clone();
      t.option('missingkey=zero');
      t.funcs({ include: includeFun(t), tpl: tplFun(t) });
      let nt: Template;
      try {
        nt = t.newTemplate(parent.name()).parse(text);
      } catch (e) {
        if (e instanceof TemplateError) throw goError(`cannot parse template ${quote(text)}: ${e.message}`);
        throw e;
      }
      let out: string;
      try {
        out = nt.execute(data);
      } catch (e) {
        if (e instanceof TemplateError) throw goError(`error during tpl function execution for ${quote(text)}: ${e.message}`);
        throw e;
      }
      return out.replaceAll('<no value>', '');
    });

  // Helm's static functions are registered once on a base set; each render clones it and binds its own.
  const fo = opts.funcs ?? FUNC_OPTIONS;
  let base = baseTemplates.get(fo);
  if (base === undefined) baseTemplates.set(fo, (base = new Template('gotpl', { missingKey: 'zero', funcs: getParseFuncs(fo) }).freeze()));
  const root = base.clone();
  const funcs: Record<string, GoFunc> = {};
  funcs.include = includeFun(root);
  funcs.tpl = tplFun(root);
  funcs.required = defineFunc('required', RENDER_FUNC_SIGS.required, (warn: string, val: GoValue) => {
    if (val === null || val === undefined || val === '') {
      if (lintMode) {
        info(`[INFO] Missing required value: ${warn}`);
        return '';
      }
      throw goError(warnWrap(warn));
    }
    return val;
  });
  funcs.fail = defineFunc('fail', RENDER_FUNC_SIGS.fail, (msg: string) => {
    if (lintMode) {
      info(`[INFO] Fail: ${msg}`);
      return '';
    }
    throw goError(warnWrap(msg));
  });
  const lookup = opts.lookup;
  funcs.lookup = defineFunc('lookup', RENDER_FUNC_SIGS.lookup, (apiVersion: string, kind: string, namespace: string, name: string) => {
    if (lookup === undefined || lintMode) return newMap();
    try {
      return lookup(apiVersion, kind, namespace, name);
    } catch (e) {
      throw goError(funcErrorText(e));
    }
  });
  root.funcs(funcs);

  const keys = sortTemplates([...tpls.keys()]);
  const pf = getParseFuncs(fo);
  for (const filename of keys) {
    const r = tpls.get(filename)!;
    let parsed: Template;
    try {
      parsed = parseCached(filename, r.tpl, { funcs: pf, missingKey: 'zero' });
    } catch (e) {
      if (e instanceof TemplateError) throw new HelmError('render', cleanupParseError(filename, e.message), true, { cause: e });
      throw e;
    }
    // Go parses into the shared set: the file's own tree, then its {{define}}s; a later definition replaces an
    // earlier one unless it is empty.
    for (const t of parsed.templates()) if (t.tree !== null) root.addParseTree(t.name(), t.tree);
  }

  const rendered = new Map<string, string>();
  for (const filename of keys) {
    if (baseName(filename).startsWith('_')) continue;
    const r = tpls.get(filename)!;
    const tv = newMap();
    tv.Name = filename;
    tv.BasePath = r.basePath;
    r.vals.Template = tv;
    let out: string;
    try {
      out = root.executeTemplate(filename, r.vals);
    } catch (e) {
      if (e instanceof TemplateError) throw new HelmError('render', e.code === 'exec' ? cleanupExecError(filename, e.message) : e.message, true, { cause: e });
      throw e;
    }
    rendered.set(filename, out.replaceAll('<no value>', ''));
  }
  return rendered;
}
