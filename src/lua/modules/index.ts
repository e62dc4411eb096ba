// modules: the Lua modules scripts load with require — json, strings, runes (projectsveltos/lua-utils) and sprig
// (by default backed by src/funcs through createSprigProvider).
import type { Converter } from '../convert.js';
import type { HelperTable } from '../helpers.js';
import { jsonModule } from './json.js';
import { runesModule } from './runes.js';
import { sprigModule, type LuaSprigProvider } from './sprig.js';
import { stringsModule } from './strings.js';

export type { LuaSprigProvider, LuaSprigFunction } from './sprig.js';
export { SPRIG_LUA_FUNCTIONS } from './sprig.js';
export { createSprigProvider, type SprigProviderOptions } from './sprig-funcs.js';

/** ModuleLoader builds the function table of one module. */
export type ModuleLoader = (conv: Converter) => HelperTable;

/** moduleLoaders returns the loaders by module name; sprig only when a provider is injected. */
export function moduleLoaders(sprig: LuaSprigProvider | undefined): Record<string, ModuleLoader> {
  const loaders: Record<string, ModuleLoader> = {
    json: jsonModule,
    strings: stringsModule,
    runes: runesModule,
  };
  if (sprig) loaders.sprig = (conv) => sprigModule(conv, sprig);
  return loaders;
}
