// oracle-case.ts: runs one case of the gotemplate oracle's JSON Lines format (see shared/oracles/README.md) through
// our engine and function maps, and answers in the oracle's format. `ripple template --jsonl` and the golden tests
// both go through renderCaseLine, so any case can be diffed against real Go.
import { decodeJSON, isGoMap, rawTopLevelField, Template, TemplateError, type GoValue, type NumberModes } from '../gotemplate/index.js';
import { funcMapByName, FUNC_MAP_NAMES, type FuncMapName } from './funcmap.js';
import { jsonString, unmarshalJSON } from './json.js';
import type { FuncOptions } from './options.js';

/** CaseResult is one answer line: `{id, output}` or `{id, error, stage}`. */
export type CaseResult = { id: string; output: string } | { id: string; error: string; stage: 'input' | 'parse' | 'exec' };

/** CaseRunOptions are the ports a case runs with; a case's own `env` field replaces `env`. */
export type CaseRunOptions = Omit<FuncOptions, 'env'> & {
  /** Environment for cases without an `env` field; absent, `env`/`expandenv` are disabled for them. */
  env?: Readonly<Record<string, string>>;
};

const FIELDS: Record<string, 'string' | 'raw' | 'env'> = {
  id: 'string',
  template: 'string',
  data: 'raw',
  funcs: 'string',
  engine: 'string',
  missingkey: 'string',
  numbers: 'raw',
  name: 'string',
  env: 'env',
  comment: 'string',
};

function goJSONKind(v: GoValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (isGoMap(v)) return 'object';
  return typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : 'number';
}


function parseNumbers(raw: GoValue): NumberModes {
  const check = (m: GoValue): 'float64' | 'int64' => {
    if (m !== 'float64' && m !== 'int64') throw new Error(`unknown numbers mode ${JSON.stringify(m)} (want float64 or int64)`);
    return m;
  };
  if (raw === null || raw === undefined) return 'float64';
  if (typeof raw === 'string') return check(raw);
  if (!isGoMap(raw) || Object.values(raw).some((v) => typeof v !== 'string')) {
    throw new Error('"numbers" must be "float64", "int64" or an object mapping top-level data keys to one of them');
  }
  const out: Record<string, 'float64' | 'int64'> = {};
  for (const [k, v] of Object.entries(raw)) out[k] = check(v);
  return out;
}

/** renderCaseLine answers one input line (lineNo counts from 1, as the oracle's messages do). */
export function renderCaseLine(line: string, lineNo: number, opts: CaseRunOptions = {}): CaseResult {
  const parsed = unmarshalJSON(line, 'interface {}');
  if (parsed.error !== undefined) return { id: '', error: `line ${lineNo}: invalid case: ${parsed.error}`, stage: 'input' };
  const obj = parsed.value;
  if (!isGoMap(obj)) {
    return { id: '', error: `line ${lineNo}: invalid case: json: cannot unmarshal ${goJSONKind(obj)} into Go value of type main.inputCase`, stage: 'input' };
  }
  const id = typeof obj.id === 'string' ? obj.id : '';
  let fieldError: string | undefined;
  for (const [k, v] of Object.entries(obj)) {
    const kind = FIELDS[k];
    if (kind === undefined) fieldError ??= `json: unknown field ${JSON.stringify(k)}`;
    else if (kind === 'string' && v !== null && typeof v !== 'string') {
      fieldError ??= `json: cannot unmarshal ${goJSONKind(v)} into Go struct field inputCase.${k} of type string`;
    } else if (kind === 'env' && v !== null) {
      if (!isGoMap(v)) fieldError ??= `json: cannot unmarshal ${goJSONKind(v)} into Go struct field inputCase.env of type map[string]string`;
      else {
        for (const e of Object.values(v)) {
          if (typeof e !== 'string') fieldError ??= `json: cannot unmarshal ${goJSONKind(e)} into Go struct field inputCase.env of type string`;
        }
      }
    }
  }
  if (fieldError !== undefined) return { id, error: `line ${lineNo}: invalid case: ${fieldError}`, stage: 'input' };
  return renderCase(
    {
      id,
      template: typeof obj.template === 'string' ? obj.template : undefined,
      rawData: rawTopLevelField(line, 'data'),
      funcs: (obj.funcs as string | null) ?? '',
      engine: (obj.engine as string | null) ?? '',
      missingkey: (obj.missingkey as string | null) ?? '',
      numbers: obj.numbers ?? null,
      name: typeof obj.name === 'string' ? obj.name : undefined,
      env: isGoMap(obj.env) ? (obj.env as Record<string, string>) : undefined,
    },
    opts,
  );
}

/** OracleCase is a decoded input case (data kept as raw JSON text). */
export interface OracleCase {
  id: string;
  template: string | undefined;
  rawData: string | undefined;
  funcs: string;
  engine: string;
  missingkey: string;
  numbers: GoValue;
  name: string | undefined;
  env: Record<string, string> | undefined;
}

/** renderCase is the oracle's renderCase: input checks in the oracle's order, then parse, then execute. */
export function renderCase(c: OracleCase, opts: CaseRunOptions = {}): CaseResult {
  const fail = (stage: 'input' | 'parse' | 'exec', error: string): CaseResult => ({ id: c.id, error, stage });
  if (c.template === undefined) return fail('input', 'missing "template"');
  let numbers: NumberModes;
  try {
    numbers = parseNumbers(c.numbers);
  } catch (e) {
    return fail('input', (e as Error).message);
  }
  let data: GoValue = null;
  if (c.rawData !== undefined && c.rawData !== '') {
    try {
      data = decodeJSON(c.rawData, { numbers });
    } catch (e) {
      if (e instanceof TemplateError) return fail('input', `invalid data: ${e.message}`);
      throw e;
    }
  }
  const missingKey = c.missingkey === '' ? 'error' : c.missingkey;
  if (!['error', 'default', 'invalid', 'zero'].includes(missingKey)) {
    return fail('input', `unknown missingkey ${JSON.stringify(missingKey)} (want error, default, invalid or zero)`);
  }
  const funcsName = (c.funcs === '' ? 'sveltos-event' : c.funcs) as FuncMapName;
  if (!FUNC_MAP_NAMES.includes(funcsName)) {
    return fail('input', `unknown funcs ${JSON.stringify(c.funcs)} (want sveltos-event, sveltos-addon, sveltos, sprig or none)`);
  }
  const engine = c.engine === '' ? 'text' : c.engine;
  if (engine !== 'text' && engine !== 'html') return fail('input', `unknown engine ${JSON.stringify(c.engine)} (want text or html)`);
  const funcs = funcMapByName(funcsName, { ...opts, env: c.env ?? opts.env }, data);
  let t: Template;
  try {
    t = new Template(c.name ?? c.id, { funcs, missingKey: missingKey as 'error', escape: engine });
    t.parse(c.template);
  } catch (e) {
    if (e instanceof TemplateError) return fail(e.code === 'parse' ? 'parse' : 'input', e.message);
    throw e;
  }
  try {
    return { id: c.id, output: t.execute(data) };
  } catch (e) {
    if (e instanceof TemplateError) return fail('exec', e.message);
    // A bug of ours, not a template error: report it in place so one case cannot stop a whole run.
    return fail('exec', `internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }
}



/** formatCaseResult writes an answer line exactly as the oracle's Go encoder does (no HTML escaping, U+2028/9 escaped). */
export function formatCaseResult(r: CaseResult): string {
  const id = jsonString(r.id, false);
  if ('output' in r) return `{"id":${id},"output":${jsonString(r.output, false)}}`;
  return `{"id":${id},"error":${jsonString(r.error, false)},"stage":"${r.stage}"}`;
}
