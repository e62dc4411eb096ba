// cases: the lua-oracle's JSON Lines case format, so one case file runs through gopher-lua (the oracle) and through
// us (`ripple lua --jsonl`, the golden test) and the outputs can be diffed line by line.
//
// Input line: {id, script, object, helpers?, timeoutMs?, numbers?, comment?} (unknown fields rejected).
// Output line: {"id","matching","message"} or {"id","error","stage"} — Go's field order and JSON escaping.
// `timeoutMs` is validated but our limit is the instruction budget; `numbers` is validated and otherwise ignored,
// because we keep integers as integers in both modes (see testdata/lua/DIFFERENCES.md).
import type { LuaRuntime } from './runtime.js';

/** LuaCaseOutput is one output line of the oracle format. */
export type LuaCaseOutput = { id: string; matching: boolean; message: string } | { id: string; error: string; stage: string };

const FIELDS = new Set(['id', 'script', 'object', 'helpers', 'timeoutMs', 'numbers', 'comment']);

/** runLuaCase evaluates one input line (lineNo is 1-based, for messages) as the oracle does. */
export function runLuaCase(runtime: LuaRuntime, line: string, lineNo: number): LuaCaseOutput {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    return { id: '', error: `line ${lineNo}: invalid case: ${(err as Error).message}`, stage: 'input' };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { id: '', error: `line ${lineNo}: invalid case: a case must be a JSON object`, stage: 'input' };
  }
  const c = raw as Record<string, unknown>;
  const id = typeof c.id === 'string' ? c.id : '';
  const bad = (message: string): LuaCaseOutput => ({ id, error: message, stage: 'input' });
  for (const k of Object.keys(c)) if (!FIELDS.has(k)) return bad(`line ${lineNo}: invalid case: json: unknown field "${k}"`);
  if (c.id !== undefined && typeof c.id !== 'string') return bad(`line ${lineNo}: invalid case: "id" must be a string`);
  if (c.helpers !== undefined && typeof c.helpers !== 'boolean') return bad(`line ${lineNo}: invalid case: "helpers" must be a boolean`);
  if (typeof c.script !== 'string') return bad(c.script === undefined || c.script === null ? 'missing "script"' : `line ${lineNo}: invalid case: "script" must be a string`);
  const mode = c.numbers ?? 'int64';
  if (mode !== 'int64' && mode !== 'float64') return bad(`unknown numbers mode ${JSON.stringify(mode)} (want int64 or float64)`);
  if (c.timeoutMs !== undefined && c.timeoutMs !== null && (typeof c.timeoutMs !== 'number' || c.timeoutMs <= 0)) {
    return bad('timeoutMs must be > 0');
  }
  let object: Record<string, unknown> = {};
  if (c.object !== undefined && c.object !== null) {
    if (typeof c.object !== 'object' || Array.isArray(c.object)) return bad('"object" must be a JSON object');
    object = c.object as Record<string, unknown>;
  }
  // sveltos-agent: an empty script matches everything without running Lua.
  if (c.script === '') return { id, matching: true, message: '' };
  const r = runtime.evaluate(c.script, object, { helpers: c.helpers === true });
  if (r.ok) return { id, matching: r.matching, message: r.message };
  return { id, error: r.failure.message, stage: r.failure.stage };
}

/** runLuaCases evaluates every non-blank line of a JSON Lines text and returns the output lines. */
export function runLuaCases(runtime: LuaRuntime, text: string): LuaCaseOutput[] {
  const out: LuaCaseOutput[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() !== '') out.push(runLuaCase(runtime, line, i + 1));
  });
  return out;
}

/** formatLuaCaseOutput serialises an output line exactly as the oracle's encoder does (field order, escaping). */
export function formatLuaCaseOutput(o: LuaCaseOutput): string {
  const q = (s: string) => JSON.stringify(s).replace(/[\u2028\u2029]/g, (ch) => (ch === '\u2028' ? '\\u2028' : '\\u2029'));
  if ('error' in o) return `{"id":${q(o.id)},"error":${q(o.error)},"stage":${q(o.stage)}}`;
  return `{"id":${q(o.id)},"matching":${o.matching},"message":${q(o.message)}}`;
}
