// lua-policy.ts: `projectsveltos.io/lua` policies — a ConfigMap/Secret whose data values are Lua code that returns the
// resources to deploy. As in Sveltos, each value runs in the sandbox with the global `resources` = the
// templateResourceRefs objects keyed by identifier (getResource(resources, "id") reads one), `evaluate()` must return
// a table whose `resources` field is YAML text (one or more documents), which is then deployed like any policy.
// Pure: the Lua runtime is handed in. Go: addon-controller controllers/handlers_utils.go instantiateWithLua.
import type { LuaRuntime } from '../lua/index.js';

/** LuaPolicyRunner turns one data value of a Lua policy into YAML text (or says why it cannot). */
export type LuaPolicyRunner = (code: string, mgmtResources: Readonly<Record<string, unknown>>) => { ok: true; text: string } | { ok: false; message: string };

/** luaPolicyRunner binds a runtime into a LuaPolicyRunner. */
export function luaPolicyRunner(lua: LuaRuntime): LuaPolicyRunner {
  return (code, mgmtResources) => {
    const r = lua.call(code, 'resources', { ...mgmtResources });
    if (!r.ok) return { ok: false, message: `${r.failure.stage === 'load' ? 'invalid Lua' : 'Lua evaluate failed'}: ${r.failure.message}` };
    const v = r.value;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return { ok: false, message: 'evaluate must return a table with a field resources (YAML text)' };
    const out = Object.hasOwn(v, 'resources') ? v.resources : undefined;
    if (out === undefined || out === null) return { ok: true, text: '' };
    if (typeof out !== 'string') return { ok: false, message: `evaluate returned resources of type ${Array.isArray(out) ? 'array' : typeof out}; it must be YAML text (a string)` };
    return { ok: true, text: out };
  };
}
