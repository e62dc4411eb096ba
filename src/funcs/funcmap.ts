// funcmap.ts: the function maps templates are parsed with — plain Sprig, libsveltos' SveltosFuncMap, and the
// event-manager and addon-controller maps that add the resource helpers. Maps are cached per FuncOptions object:
// keep one options object per component and every call returns the same frozen map. The addon map is built per
// call because it closes over that render's .MgmtResources.
import type { FuncMap, GoFunc, GoValue } from '../gotemplate/index.js';
import { collectionFuncs } from './collections.js';
import { cryptoFuncs } from './crypto.js';
import { dateFuncs } from './date.js';
import { encodingFuncs } from './encoding.js';
import { jsonFuncs } from './json.js';
import { numericFuncs } from './numeric.js';
import { resolveOptions, type FuncOptions } from './options.js';
import { osFuncs } from './os.js';
import { regexFuncs } from './regex.js';
import { semverFuncs } from './semver.js';
import { stringFuncs } from './strings.js';
import { addonResourceFuncs, eventResourceFuncs, sveltosOverrides } from './sveltos.js';
import { urlFuncs } from './url.js';
import { defineFunc } from './define.js';
import { toYamlV3, YAMLError } from './yaml.js';

// Functions that do not depend on FuncOptions are built once; the option-bound ones per options object.
let staticSprig: GoFunc[] | undefined;
let staticOverrides: GoFunc[] | undefined;
let staticEvent: GoFunc[] | undefined;
const sprigCache = new WeakMap<FuncOptions, FuncMap>();
const sveltosCache = new WeakMap<FuncOptions, FuncMap>();
const eventCache = new WeakMap<FuncOptions, FuncMap>();

function toMap(fns: readonly GoFunc[], base: FuncMap = {}): FuncMap {
  const m: Record<string, GoFunc> = { ...base };
  for (const f of fns) m[f.name] = f;
  return Object.freeze(m);
}

/** sprigFuncMap is Sprig v3.3.0's GenericFuncMap (the same map TxtFuncMap and HtmlFuncMap return). */
export function sprigFuncMap(opts: FuncOptions = {}): FuncMap {
  const hit = sprigCache.get(opts);
  if (hit) return hit;
  const o = resolveOptions(opts);
  staticSprig ??= [...collectionFuncs(), ...jsonFuncs(), ...encodingFuncs(), ...regexFuncs(), ...urlFuncs(), ...semverFuncs()];
  // Sprig's map has each name once; the order here only decides which of two same-named entries wins (none do).
  const m = toMap([...stringFuncs(o), ...numericFuncs(o), ...staticSprig, ...dateFuncs(o), ...cryptoFuncs(o), ...osFuncs(o)]);
  sprigCache.set(opts, m);
  return m;
}

/** sveltosFuncMap is libsveltos' SveltosFuncMap: Sprig plus the eight error-swallowing overrides. */
export function sveltosFuncMap(opts: FuncOptions = {}): FuncMap {
  const hit = sveltosCache.get(opts);
  if (hit) return hit;
  staticOverrides ??= sveltosOverrides();
  const m = toMap(staticOverrides, sprigFuncMap(opts));
  sveltosCache.set(opts, m);
  return m;
}

/** eventFuncMap is event-manager's map: SveltosFuncMap plus getResource/copy/getField/… taking resource maps. */
export function eventFuncMap(opts: FuncOptions = {}): FuncMap {
  const hit = eventCache.get(opts);
  if (hit) return hit;
  staticEvent ??= eventResourceFuncs();
  const m = toMap(staticEvent, sveltosFuncMap(opts));
  eventCache.set(opts, m);
  return m;
}

/**
 * addonFuncMap is addon-controller's map: SveltosFuncMap plus getResource/copy/getField/… taking identifiers that
 * are looked up in mgmtResources (the template data's `.MgmtResources`, identifier → resource map).
 */
export function addonFuncMap(opts: FuncOptions = {}, mgmtResources: GoValue = null): FuncMap {
  return toMap(addonResourceFuncs(mgmtResources), sveltosFuncMap(opts));
}

const helmCache = new WeakMap<FuncOptions, FuncMap>();

/**
 * helmFuncMap is Helm v3's engine funcMap() without the per-render functions: Sprig without env/expandenv, Helm's
 * toToml/fromToml/toYaml/toYamlPretty/fromYaml/fromYamlArray/toJson/fromJson/fromJsonArray (libsveltos copied
 * Helm's, so they are shared) and getHostByName returning "" (Helm's default, DNS lookups disabled). The Helm
 * engine adds include, tpl, required, fail and lookup per render.
 */
export function helmFuncMap(opts: FuncOptions = {}): FuncMap {
  const hit = helmCache.get(opts);
  if (hit) return hit;
  staticOverrides ??= sveltosOverrides();
  const base: Record<string, GoFunc> = { ...sprigFuncMap(opts) };
  delete base.env;
  delete base.expandenv;
  const m = toMap(
    [
      ...staticOverrides,
      defineFunc('toYamlPretty', '(interface {}) string', (v: GoValue) => {
        try {
          return toYamlV3(v, 2).replace(/\n$/, '');
        } catch (e) {
          if (e instanceof YAMLError) return '';
          throw e;
        }
      }),
      defineFunc('getHostByName', '(string) string', () => ''),
    ],
    base,
  );
  helmCache.set(opts, m);
  return m;
}

/** FuncMapName names the function maps the oracle (and `ripple template --funcs`) know. */
export type FuncMapName = 'sveltos-event' | 'sveltos-addon' | 'sveltos' | 'sprig' | 'none';

/** FUNC_MAP_NAMES lists the valid FuncMapName values. */
export const FUNC_MAP_NAMES: readonly FuncMapName[] = ['sveltos-event', 'sveltos-addon', 'sveltos', 'sprig', 'none'];

/** funcMapByName builds the named map; the addon map reads `.MgmtResources` from the template data. */
export function funcMapByName(name: FuncMapName, opts: FuncOptions, data: GoValue): FuncMap {
  switch (name) {
    case 'sveltos-event':
      return eventFuncMap(opts);
    case 'sveltos-addon': {
      const mgmt = data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, GoValue>).MgmtResources : null;
      return addonFuncMap(opts, mgmt ?? null);
    }
    case 'sveltos':
      return sveltosFuncMap(opts);
    case 'sprig':
      return sprigFuncMap(opts);
    case 'none':
      return Object.freeze({});
  }
}
