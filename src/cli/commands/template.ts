// template: renders a Go template with Sveltos' function maps, offline — one file against a data file, or the
// gotemplate oracle's JSON Lines cases from stdin (so any case can be diffed against real Go).
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseAllDocuments } from 'yaml';
import {
  decodeJSON,
  Template,
  TemplateError,
  type GoValue,
  type MissingKey,
  type NumberModes,
} from '../../gotemplate/index.js';
import { FUNC_MAP_NAMES, formatCaseResult, funcMapByName, renderCaseLine, type FuncMapName, type FuncOptions } from '../../funcs/index.js';
import { ExitCode, parseFlags, UsageError, type Command, type CommandIO } from '../command.js';

const USAGE = `Usage:
  ripple template FILE [--data DATA.yaml|DATA.json] [flags]
  ripple template --jsonl [flags] < cases.jsonl > results.jsonl

Renders a Go text/template the way Sveltos does (Sprig v3.3.0 plus Sveltos' functions, missingkey=error).

With FILE, the rendered text goes to stdout. A parse or execution error goes to stderr with Go's message
(template: NAME:LINE:COL: …) and the exit code is 3.

With --jsonl, every line of stdin is a case in the gotemplate oracle's format
({"id","template","data","funcs","missingkey","numbers","engine","env","name","comment"}) and every answer is a
line {"id","output"} or {"id","error","stage"} on stdout, in order, exactly as
shared/oracles/bin/gotemplate-oracle prints it. Bad cases are answered, not fatal; the exit code is 0.

Flags:
  --data FILE          template data (the dot): JSON, or YAML (first document). Default: no data (nil).
  --funcs NAME         function map: sveltos-event (default; event-manager: getResource/copy/… take maps),
                       sveltos-addon (addon-controller: they take .MgmtResources identifiers), sveltos
                       (Sprig + Sveltos' 8 overrides), sprig, none.
  --missingkey MODE    error (default, as Sveltos), default, invalid, zero.
  --numbers MODE       how data numbers are typed: float64 (default; event-manager's .Resource) or int64
                       (integers as int64, like .Cluster and .MgmtResources).
  --engine ENGINE      text (default) or html (html/template escaping, as libsveltos renders names).
  --name NAME          template name used in error messages (default: FILE, or the case id).
  --env NAME=VALUE     make env/expandenv see this variable (repeatable). Without --env or --allow-env,
                       env and expandenv fail: Ripple does not expose the environment to templates by default.
  --allow-env          let env/expandenv read this process's environment (what Sveltos does).
  --host NAME=IP       answer getHostByName for NAME (repeatable); otherwise getHostByName fails.
  --local-zone ZONE    IANA zone that stands for Go's time.Local in date functions (default UTC).

Examples:
  ripple template lb.tmpl --data event.yaml
  ripple template addon.tmpl --data mgmt.json --funcs sveltos-addon --numbers int64
  ripple template --jsonl < shared/oracles/examples/templates.jsonl
`;

const FLAGS = {
  data: { type: 'string' },
  funcs: { type: 'string' },
  missingkey: { type: 'string' },
  numbers: { type: 'string' },
  engine: { type: 'string' },
  name: { type: 'string' },
  env: { type: 'string', multiple: true },
  'allow-env': { type: 'boolean' },
  host: { type: 'string', multiple: true },
  'local-zone': { type: 'string' },
  jsonl: { type: 'boolean' },
} as const;

/** pairs parses repeated NAME=VALUE flags. */
function pairs(flag: string, values: string[] | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const v of values ?? []) {
    const eq = v.indexOf('=');
    if (eq <= 0) throw new UsageError(`--${flag} wants NAME=VALUE, got ${JSON.stringify(v)}`);
    (out[v.slice(0, eq)] ??= []).push(v.slice(eq + 1));
  }
  return out;
}

/** jsonWithBigInts writes a parsed YAML value as JSON text, keeping big integers exact for decodeJSON. */
function jsonWithBigInts(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Date) return JSON.stringify(v.toISOString());
  if (Array.isArray(v)) return `[${v.map(jsonWithBigInts).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, e]) => `${JSON.stringify(k)}:${jsonWithBigInts(e)}`)
      .join(',')}}`;
  }
  if (typeof v === 'number' && !Number.isFinite(v)) throw new Error(`the number ${v} has no JSON form`);
  return JSON.stringify(v ?? null);
}

function readData(path: string, numbers: NumberModes): GoValue {
  const text = readFileSync(path, 'utf8');
  const trimmed = text.trimStart();
  if (/\.json$/i.test(path) || trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return decodeJSON(text, { numbers });
    } catch (e) {
      if (!/\.json$/i.test(path)) {
        /* not JSON after all: try YAML below */
      } else throw new Error(`${path}: ${(e as Error).message}`);
    }
  }
  const docs = parseAllDocuments(text, { intAsBigInt: true });
  const doc = Array.isArray(docs) ? docs[0] : undefined;
  if (!doc) return null;
  if (doc.errors.length > 0) throw new Error(`${path}: invalid YAML: ${doc.errors[0].message.split('\n')[0]}`);
  return decodeJSON(jsonWithBigInts(doc.toJS({ maxAliasCount: 1000 })), { numbers });
}

function funcOptions(values: ReturnType<typeof parse>['values']): FuncOptions {
  const env = values['allow-env'] ? { ...(process.env as Record<string, string>) } : undefined;
  const explicit = pairs('env', values.env);
  const hosts = pairs('host', values.host);
  const opts: FuncOptions = { clock: { now: () => Date.now() } };
  if (env || Object.keys(explicit).length > 0) {
    opts.env = { ...(env ?? {}), ...Object.fromEntries(Object.entries(explicit).map(([k, v]) => [k, v[v.length - 1]])) };
  }
  if (Object.keys(hosts).length > 0) opts.resolveHost = (name) => hosts[name] ?? [];
  if (values['local-zone'] !== undefined) {
    const zone = values['local-zone'];
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
    } catch {
      throw new UsageError(`--local-zone: unknown time zone ${JSON.stringify(zone)} (use an IANA name such as Europe/Berlin)`);
    }
    opts.localZone = zone;
  }
  return opts;
}

function parse(args: string[]) {
  return parseFlags(args, FLAGS);
}

async function runJSONL(io: CommandIO, opts: FuncOptions): Promise<number> {
  const rl = createInterface({ input: io.stdin, crlfDelay: Infinity });
  let lineNo = 0;
  for await (const line of rl) {
    lineNo++;
    if (line.trim() === '') continue;
    io.stdout.write(formatCaseResult(renderCaseLine(line, lineNo, opts)) + '\n');
  }
  return ExitCode.Ok;
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[], dflt: T): T {
  if (value === undefined) return dflt;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${flag} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
  }
  return value as T;
}

export const commands: Command[] = [
  {
    path: ['template'],
    summary: 'Render a Go template with Sveltos functions, or answer gotemplate-oracle JSON Lines cases',
    usage: USAGE,
    async run(args, io) {
      const { values, positionals } = parse(args);
      const opts = funcOptions(values);
      if (values.jsonl) {
        if (positionals.length > 0) throw new UsageError('--jsonl reads cases from stdin and takes no FILE');
        return runJSONL(io, opts);
      }
      if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'missing FILE (or --jsonl)' : 'exactly one FILE, please');
      const file = positionals[0];
      const funcs = oneOf<FuncMapName>('funcs', values.funcs, FUNC_MAP_NAMES, 'sveltos-event');
      const missingKey = oneOf<MissingKey>('missingkey', values.missingkey, ['error', 'default', 'invalid', 'zero'] as MissingKey[], 'error' as MissingKey);
      const numbers = oneOf('numbers', values.numbers, ['float64', 'int64'] as const, 'float64');
      const engine = oneOf('engine', values.engine, ['text', 'html'] as const, 'text');
      let text: string;
      let data: GoValue = null;
      try {
        text = readFileSync(file, 'utf8');
        if (values.data !== undefined) data = readData(values.data, numbers);
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        const msg = err.code === 'ENOENT' ? `${err.path}: no such file` : err.message;
        io.stderr.write(`ripple template: ${msg}\n`);
        return ExitCode.BadInput;
      }
      try {
        const t = new Template(values.name ?? file, { funcs: funcMapByName(funcs, opts, data), missingKey, escape: engine });
        t.parse(text);
        io.stdout.write(t.execute(data));
        return ExitCode.Ok;
      } catch (e) {
        if (e instanceof TemplateError) {
          io.stderr.write(`${e.message}\n`);
          return ExitCode.BadInput;
        }
        throw e;
      }
    },
  },
];
