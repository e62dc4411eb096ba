// validate: checks YAML files holding Sveltos objects (any served version, old shapes included) and prints every
// problem with its field path; --normalize prints the v1beta1 form Ripple works with.
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { formatIssue, normalize, validate, type Issue, type ValidationResult } from '../../api/index.js';
import { createLuaRuntime, type LuaRuntime } from '../../lua/index.js';
import { compileEventSource, type EventSourceInput } from '../../match/index.js';
import { ExitCode, UsageError, oneOf, parseFlags, type Command, type CommandIO } from '../command.js';

const usage = `Usage: ripple validate [--normalize] [--output text|json] FILE|DIR|- ...

Validates Kubernetes YAML (one or many documents per file) holding Sveltos objects — EventSource, EventTrigger,
EventReport, ClusterProfile, Profile, SveltosCluster, … in v1beta1 or the older v1alpha1 shapes (flat EventSource,
string selectors such as "env=fv", EventBasedAddOn). Every problem is printed with its field path
(spec.resourceSelectors[0].kind) and an API-server style message. Objects of other kinds (ConfigMap, Service, …)
are checked for apiVersion, kind and metadata.name only and reported as such.

Arguments:
  FILE   a YAML file; DIR: every *.yaml / *.yml file in it; -: standard input

Flags:
  --normalize           print the v1beta1 form of every valid object (YAML on stdout, diagnostics on stderr);
                        objects of other kinds are printed unchanged, so the output can be piped to kubectl apply
  -o, --output FORMAT   text (default) or json (one result per object, machine-readable)

Exit status: 0 when every object is valid, 3 when any object is invalid or a file cannot be read or parsed,
2 for a bad command line.

Examples:
  ripple validate eventtrigger.yaml
  ripple validate --normalize old-eventbasedaddon.yaml | kubectl apply -f -
  cat objects.yaml | ripple validate -
`;

interface ObjectResult {
  source: string;
  line: number;
  apiVersion?: string;
  kind?: string;
  name?: string;
  sveltos: boolean;
  valid: boolean;
  issues: Issue[];
  warnings: string[];
  notes: string[];
  normalized?: unknown;
}

async function readSources(args: string[], io: CommandIO): Promise<{ source: string; text?: string; error?: string }[]> {
  const out: { source: string; text?: string; error?: string }[] = [];
  for (const arg of args) {
    if (arg === '-') {
      let text = '';
      for await (const chunk of io.stdin) text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      out.push({ source: '<stdin>', text });
      continue;
    }
    try {
      if ((await stat(arg)).isDirectory()) {
        const files = (await readdir(arg)).filter((f) => /\.ya?ml$/.test(f)).sort();
        if (files.length === 0) out.push({ source: arg, error: 'directory holds no *.yaml or *.yml files' });
        for (const f of files) out.push({ source: join(arg, f), text: await readFile(join(arg, f), 'utf8') });
      } else {
        out.push({ source: arg, text: await readFile(arg, 'utf8') });
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR') {
        out.push({ source: arg, error: code === 'ENOENT' ? 'no such file or directory' : `cannot read (${code})` });
      } else {
        throw err;
      }
    }
  }
  return out;
}

const lineAt = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

function check(source: string, text: string, withNormalize: boolean, runtime: LuaRuntime): { results: ObjectResult[]; parseErrors: string[] } {
  const results: ObjectResult[] = [];
  const parseErrors: string[] = [];
  for (const doc of parseAllDocuments(text)) {
    const start = doc.contents?.range?.[0] ?? doc.range?.[0] ?? 0;
    if (doc.errors.length > 0) {
      for (const e of doc.errors) {
        const message = e.message.split('\n')[0].replace(/:\s*$/, '');
        parseErrors.push(`${source}:${e.linePos?.[0]?.line ?? lineAt(text, start)}: YAML syntax error: ${message}`);
      }
      continue;
    }
    const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (value === null || value === undefined) continue; // an empty document (e.g. a leading ---)
    const r: ValidationResult = validate(value);
    const o = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
    const meta = (o.metadata && typeof o.metadata === 'object' ? o.metadata : {}) as Record<string, unknown>;
    const result: ObjectResult = {
      source,
      line: lineAt(text, start),
      apiVersion: typeof o.apiVersion === 'string' ? o.apiVersion : undefined,
      kind: typeof o.kind === 'string' ? o.kind : undefined,
      name: typeof meta.name === 'string' ? meta.name : undefined,
      sveltos: r.lookup !== undefined && r.lookup.status !== 'foreign',
      valid: r.valid,
      issues: r.issues,
      warnings: r.warnings,
      notes: r.notes,
    };
    // An EventSource's Lua and CEL are compiled the way the agent (and ripple render) compiles them: a script that
    // does not compile, or a rule that does not type-check, makes the object invalid here too.
    if (r.valid && result.sveltos && result.kind === 'EventSource') {
      const n = normalize(value);
      if (n.ok) {
        const compiled = compileEventSource(n.object as unknown as EventSourceInput, runtime);
        for (const d of compiled.diagnostics) result.issues.push({ path: d.field, code: 'invalidValue', message: d.message });
        if (compiled.diagnostics.length > 0) result.valid = false;
      }
    }
    if (withNormalize && result.valid) {
      if (result.sveltos) {
        const n = normalize(value);
        if (n.ok) {
          result.normalized = n.object;
          result.notes = n.warnings;
        } else {
          result.valid = false;
          result.issues = n.issues;
        }
      } else {
        result.normalized = value;
      }
    }
    results.push(result);
  }
  return { results, parseErrors };
}

function describe(r: ObjectResult): string {
  const what = [r.apiVersion ?? '<no apiVersion>', r.kind ?? '<no kind>', r.name ?? '<no name>'].join(' ');
  const verdict = !r.valid
    ? `${r.issues.length} error${r.issues.length === 1 ? '' : 's'}`
    : r.sveltos
      ? 'valid'
      : 'not a Sveltos kind: checked apiVersion, kind and metadata.name only';
  return `${r.source}:${r.line} ${what}: ${verdict}`;
}

export const commands: Command[] = [
  {
    path: ['validate'],
    summary: 'Validate YAML files of Sveltos objects (v1beta1 and old shapes); --normalize prints v1beta1',
    usage,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        normalize: { type: 'boolean', default: false },
        output: { type: 'string', short: 'o', default: 'text' },
      });
      const output = oneOf('--output', values.output ?? 'text', ['text', 'json']);
      if (positionals.length === 0) throw new UsageError('give at least one FILE, DIR or - (standard input)');
      const withNormalize = values.normalize === true;
      const report = withNormalize && output === 'text' ? io.stderr : io.stdout;

      const all: ObjectResult[] = [];
      const failures: string[] = [];
      // Compiling needs no clock: nothing runs, scripts are only loaded.
      const runtime = await createLuaRuntime();
      try {
        for (const src of await readSources(positionals, io)) {
          if (src.error !== undefined || src.text === undefined) {
            failures.push(`${src.source}: ${src.error}`);
            continue;
          }
          const { results, parseErrors } = check(src.source, src.text, withNormalize, runtime);
          failures.push(...parseErrors);
          if (results.length === 0 && parseErrors.length === 0) failures.push(`${src.source}: no Kubernetes objects found`);
          all.push(...results);
        }
      } finally {
        runtime.close();
      }

      if (output === 'json') {
        io.stdout.write(JSON.stringify({ failures, objects: all }, null, 2) + '\n');
      } else {
        for (const f of failures) report.write(`error: ${f}\n`);
        for (const r of all) {
          report.write(describe(r) + '\n');
          for (const i of r.issues) report.write(`  error: ${formatIssue(i)}\n`);
          for (const w of r.warnings) report.write(`  warning: ${w}\n`);
          for (const n of r.notes) report.write(`  note: ${n}\n`);
        }
        const invalid = all.filter((r) => !r.valid).length;
        const foreign = all.filter((r) => !r.sveltos).length;
        report.write(
          `${all.length} object${all.length === 1 ? '' : 's'}: ${all.length - invalid} valid, ${invalid} invalid` +
            (foreign ? ` (${foreign} not Sveltos kinds)` : '') +
            (failures.length ? `; ${failures.length} file problem${failures.length === 1 ? '' : 's'}` : '') +
            '\n',
        );
        if (withNormalize) {
          for (const r of all) if (r.normalized !== undefined) io.stdout.write('---\n' + stringify(r.normalized, { lineWidth: 0 }));
        }
      }
      return failures.length > 0 || all.some((r) => !r.valid) ? ExitCode.BadInput : ExitCode.Ok;
    },
  },
];
