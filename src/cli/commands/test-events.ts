// test-events: `ripple test events DIR` runs Sveltos' EventSource validation layout — every directory holding an
// eventsource.yaml is a case, with optional matching.yaml and non-matching.yaml (several documents separated by
// ---) — and prints one row per resource.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { formatIssue, normalizeAs, type EventSource } from '../../api/index.js';
import { createLuaRuntime } from '../../lua/index.js';
import { validateEventCase, type EventCheck, type KubeObject } from '../../match/index.js';
import { ExitCode, UsageError, parseFlags, type Command } from '../command.js';

const usage = `Usage: ripple test events DIR [-o table|json]

Validates EventSources the way Sveltos' validation layout does (sveltos-agent pkg/evaluation/events):
every directory under DIR that holds an eventsource.yaml is a case; its optional matching.yaml and
non-matching.yaml hold resources (several YAML documents separated by ---) that must, and must not,
match the EventSource. Each resource is checked against the whole selector: group/version/kind,
namespace, name, labelFilters, selector, evaluateCEL and the Lua evaluate script.
An aggregatedSelection is run over both sets and must return exactly the matching resources.
v1alpha1 EventSources (flat spec.kind/spec.script, labelsFilters, resourceSelectors[].script) are accepted.

Flags:
  -o, --output FORMAT   table (default) or json

Exit codes: 0 all cases pass, 1 some resource did not give the expected result (or a case is broken),
2 bad command line, 3 DIR missing or holding no case.

Example:
  ripple test events testdata/events
`;

interface Row extends EventCheck {
  case: string;
}

/** commands registers `ripple test events`. */
export const commands: Command[] = [
  {
    path: ['test', 'events'],
    summary: "Run Sveltos' EventSource validation layout (eventsource.yaml, matching.yaml, non-matching.yaml)",
    usage,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, { output: { type: 'string', short: 'o' } });
      if (positionals.length !== 1) throw new UsageError('exactly one DIR is required');
      const format = values.output ?? 'table';
      if (format !== 'table' && format !== 'json') throw new UsageError(`--output must be table or json, got "${format}"`);
      const root = positionals[0];
      let dirs: string[];
      try {
        dirs = caseDirs(root);
      } catch (err) {
        io.stderr.write(`ripple test events: cannot read ${root}: ${(err as Error).message}\nGive a directory that contains case directories with an eventsource.yaml.\n`);
        return ExitCode.BadInput;
      }
      if (dirs.length === 0) {
        io.stderr.write(`ripple test events: no eventsource.yaml under ${root}\nEach case is a directory with eventsource.yaml and optional matching.yaml / non-matching.yaml.\n`);
        return ExitCode.BadInput;
      }
      // The wall clock is read here, at the edge: os.time() and sprig.ago in scripts use it.
      const runtime = await createLuaRuntime({ clock: { now: () => Date.now() } });
      const rows: Row[] = [];
      for (const dir of dirs) {
        const name = relative(root, dir) || '.';
        try {
          const eventSource = readEventSource(join(dir, 'eventsource.yaml'));
          const matching = readResources(join(dir, 'matching.yaml'));
          const nonMatching = readResources(join(dir, 'non-matching.yaml'));
          const { checks } = validateEventCase({ eventSource, matching, nonMatching }, runtime);
          if (checks.length === 0) {
            rows.push({ case: name, subject: '-', set: 'both', expected: 'match', got: 'nothing to check', ok: true, message: 'no matching.yaml or non-matching.yaml' });
          }
          for (const c of checks) rows.push({ case: name, ...c });
        } catch (err) {
          if (!(err instanceof CaseError)) throw err;
          rows.push({ case: name, subject: err.file, set: 'both', expected: 'match', got: 'error', ok: false, message: err.message });
        }
      }
      runtime.close();
      const failed = rows.filter((r) => !r.ok).length;
      if (format === 'json') io.stdout.write(JSON.stringify({ cases: dirs.length, failed, rows }, null, 2) + '\n');
      else io.stdout.write(table(rows) + `\n${dirs.length} case${dirs.length === 1 ? '' : 's'}, ${rows.length - failed} passed, ${failed} failed\n`);
      return failed > 0 ? ExitCode.Failed : ExitCode.Ok;
    },
  },
];

/** CaseError is a case that cannot be evaluated (missing or invalid YAML); it is reported as a failed row. */
class CaseError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}

function caseDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    const names = readdirSync(dir).sort();
    if (names.includes('eventsource.yaml')) out.push(dir);
    for (const n of names) {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) walk(p);
    }
  };
  if (!statSync(root).isDirectory()) throw new Error('not a directory');
  walk(root);
  return out;
}

function parseYamlFile(path: string): unknown[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CaseError(path.split('/').pop()!, `cannot read: ${(err as Error).message}`);
  }
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  const out: unknown[] = [];
  for (const d of list) {
    if (d.errors.length > 0) throw new CaseError(path.split('/').pop()!, `invalid YAML: ${d.errors[0].message.split('\n')[0]}`);
    const v = d.toJS() as unknown;
    if (v !== null && v !== undefined) out.push(v);
  }
  return out;
}

// readEventSource reads the EventSource of a case in any shape Sveltos has served (v1beta1; v1alpha1 with
// resourceSelectors[].script; the flat v1alpha1 spec, including the docs' labelsFilters spelling) and normalises it
// to v1beta1 with src/api, exactly as the controllers do.
function readEventSource(path: string): EventSource {
  const docs = parseYamlFile(path).filter((d): d is Record<string, unknown> => typeof d === 'object' && d !== null && !Array.isArray(d));
  const es = docs.find((d) => d.kind === 'EventSource') ?? docs[0];
  if (!es) throw new CaseError('eventsource.yaml', 'no EventSource document');
  if (es.kind !== undefined && es.kind !== 'EventSource') throw new CaseError('eventsource.yaml', `expected kind EventSource, got ${String(es.kind)}`);
  const r = normalizeAs('EventSource', es);
  if (!r.ok) throw new CaseError('eventsource.yaml', `invalid EventSource: ${r.issues.map(formatIssue).join('; ')}`);
  return r.object;
}

function readResources(path: string): KubeObject[] | undefined {
  try {
    statSync(path);
  } catch {
    return undefined; // optional file
  }
  const docs = parseYamlFile(path);
  for (const d of docs) {
    if (typeof d !== 'object' || d === null || Array.isArray(d)) throw new CaseError(path.split('/').pop()!, 'every document must be a Kubernetes object');
  }
  return docs as KubeObject[];
}

function table(rows: Row[]): string {
  const header = ['CASE', 'RESOURCE', 'EXPECTED', 'GOT', 'RESULT', 'MESSAGE'];
  const cells = rows.map((r) => [r.case, r.subject, r.expected, r.got, r.ok ? 'ok' : 'FAIL', r.message.replace(/\s+/g, ' ')]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (i === 5 ? 0 : c[i].length))));
  const line = (c: string[]) => c.map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(header), ...cells.map(line)].join('\n');
}
