// helm: `ripple helm template|show values|show chart|lint|package` — Helm v3 charts rendered exactly as
// `helm template` renders them. This file is the I/O edge: it reads chart directories (honouring .helmignore),
// packaged .tgz files and values files from disk, and hands bytes to the pure src/helm component.
import { lstatSync, readdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  Chart,
  defaultCapabilities,
  formatHelmError,
  formatTemplateOutput,
  HelmError,
  IGNORE_FILE,
  IgnoreRules,
  lintChart,
  loadChartArchive,
  loadChartFiles,
  metadataYaml,
  mergeUserValues,
  packageChart,
  parseKubeVersion,
  renderChart,
  trimFileBOM,
  type ChartFile,
  type ValuesFile,
} from '../../helm/index.js';
import { ExitCode, parseFlags, UsageError, type Command, type CommandIO } from '../command.js';

/** FUNC_OPTIONS gives templates the system clock (now, date, genCA), as helm does; one object, so maps are cached. */
const FUNC_OPTIONS = { clock: { now: () => Date.now() } };

/** MAX_FILE_SIZE is Helm's MaxDecompressedFileSize (5 MiB). */
const MAX_FILE_SIZE = 5 * 1024 * 1024;

/** goBytesLess compares names bytewise, as Go's sort.Strings (filepath.Walk's order). */
function goLess(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** readChartDir is loader.LoadDir's walk: every regular file not ignored by .helmignore, in Walk order. */
export function readChartDir(dir: string): ChartFile[] {
  const top = resolve(dir);
  let rules = new IgnoreRules();
  const ifile = join(top, IGNORE_FILE);
  if (existsSync(ifile)) {
    try {
      rules = IgnoreRules.parse(readFileSync(ifile, 'utf8'));
    } catch (e) {
      throw new HelmError('load', (e as Error).message);
    }
  }
  rules.addDefaults();
  const files: ChartFile[] = [];
  const walk = (abs: string, rel: string) => {
    for (const name of readdirSync(abs).sort(goLess)) {
      const a = join(abs, name);
      const n = rel === '' ? name : `${rel}/${name}`;
      const st = statSync(a); // symlinks are followed, as Helm's sympath.Walk does
      if (st.isDirectory()) {
        if (rules.ignores(n, true)) continue;
        walk(a, n);
        continue;
      }
      if (rules.ignores(n, false)) continue;
      if (!st.isFile()) throw new HelmError('load', `cannot load irregular file ${a} as it has file mode type bits set`);
      if (st.size > MAX_FILE_SIZE) throw new HelmError('load', `chart file "${name}" is larger than the maximum file size ${MAX_FILE_SIZE}`);
      files.push({ name: n, data: trimFileBOM(new Uint8Array(readFileSync(a))) });
    }
  };
  walk(top, '');
  return files;
}

/** locateChart is ChartPathOptions.LocateChart for local charts: the path, or Helm's error. */
function locateChart(name: string): string {
  if (existsSync(name)) return resolve(name);
  if (name.startsWith('/') || name.startsWith('.')) throw new HelmError('load', `path ${JSON.stringify(name)} not found`);
  if (!name.includes('/')) throw new HelmError('load', `non-absolute URLs should be in form of repo_name/path_to_chart, got: ${name}`);
  throw new HelmError('load', `repo ${name.split('/')[0]} not found`);
}

/** loadChartFromDisk is loader.Load: a chart directory or a packaged chart file. */
export function loadChartFromDisk(path: string, warn: (m: string) => void = () => {}): { chart: Chart; files: ChartFile[] | null } {
  const st = lstatSync(path);
  if (statSync(path).isDirectory() || st.isDirectory()) {
    const files = readChartDir(path);
    return { chart: loadChartFiles(files, warn), files };
  }
  const bytes = new Uint8Array(readFileSync(path));
  if (!(bytes[0] === 0x1f && bytes[1] === 0x8b && bytes[2] === 0x08)) {
    if (path.endsWith('.yml') || path.endsWith('.yaml')) throw new HelmError('load', `file '${path}' seems to be a YAML file, but expected a gzipped archive`);
    const ct = /^[\t\n\r\x20-\x7e]*$/.test(Buffer.from(bytes.subarray(0, 512)).toString('latin1')) ? 'text/plain; charset=utf-8' : 'application/octet-stream';
    throw new HelmError('load', `file '${path}' does not appear to be a gzipped archive; got '${ct}'`);
  }
  try {
    return { chart: loadChartArchive(bytes, warn), files: null };
  } catch (e) {
    if (e instanceof HelmError && e.message === 'gzip: invalid header') throw new HelmError('load', `file '${path}' does not appear to be a valid chart file (details: ${e.message})`);
    throw e;
  }
}

function readValuesFiles(names: readonly string[]): ValuesFile[] {
  return names.map((name) => {
    try {
      return { name, text: new TextDecoder().decode(readFileSync(name)) };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file or directory' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
      throw new HelmError('values', `open ${name}: ${why}`);
    }
  });
}

/** normalizeBoolFlags turns `--flag=true|false` into what node's parseArgs understands. */
function normalizeBoolFlags(args: string[], names: readonly string[]): string[] {
  const out: string[] = [];
  for (const a of args) {
    const m = /^--?([a-z-]+)=(true|false)$/.exec(a);
    if (m && names.includes(m[1])) {
      out.push(m[2] === 'true' ? `--${m[1]}` : `--no-${m[1]}`);
      continue;
    }
    out.push(a);
  }
  return out;
}

function fail(io: CommandIO, e: unknown): number {
  if (e instanceof HelmError) {
    io.stderr.write(`Error: ${formatHelmError(e)}\n`);
    return ExitCode.Failed;
  }
  if (e instanceof Error && 'code' in e && typeof (e as NodeJS.ErrnoException).code === 'string' && (e as NodeJS.ErrnoException).syscall) {
    io.stderr.write(`Error: ${e.message}\n`);
    return ExitCode.Failed;
  }
  throw e;
}

const TEMPLATE_USAGE = `Usage:
  ripple helm template [NAME] CHART [flags]

Renders a Helm chart (a directory or a packaged .tgz) locally and prints the manifests exactly as Helm v3.17's
\`helm template\` does: "---" separators, "# Source:" comments, manifests in Helm's install order, then hooks.
Errors are printed as Helm prints them ("Error: …") and the exit code is 1. NAME defaults to "release-name".

Flags:
  -n, --namespace NS       release namespace (default "default")
  -f, --values FILE        values file (repeatable; later files win)
      --set K=V            set values on the command line (repeatable; a=1 is an int64, a=null deletes)
      --set-string K=V     set STRING values on the command line (repeatable)
      --kube-version V     Kubernetes version for .Capabilities.KubeVersion (default v1.32.0)
  -a, --api-versions V     extra .Capabilities.APIVersions (repeatable, comma-separated allowed)
      --include-crds       include the crds/ files in the output (default false, as helm)
      --skip-tests         leave out test hooks
      --is-upgrade         set .Release.IsUpgrade instead of .Release.IsInstall

Examples:
  ripple helm template ./mychart
  ripple helm template web ./mychart-1.2.0.tgz -n prod -f prod.yaml --set image.tag=1.2.3
`;

const TEMPLATE_FLAGS = {
  namespace: { type: 'string', short: 'n' },
  values: { type: 'string', short: 'f', multiple: true },
  set: { type: 'string', multiple: true },
  'set-string': { type: 'string', multiple: true },
  'kube-version': { type: 'string' },
  'api-versions': { type: 'string', short: 'a', multiple: true },
  'include-crds': { type: 'boolean' },
  'no-include-crds': { type: 'boolean' },
  'skip-tests': { type: 'boolean' },
  'no-skip-tests': { type: 'boolean' },
  'is-upgrade': { type: 'boolean' },
  'no-is-upgrade': { type: 'boolean' },
} as const;

/** runHelmTemplate is `helm template`; exported for the golden test, which runs it in-process. */
export function runHelmTemplate(args: string[]): { stdout: string; stderr: string; code: number } {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => ((stdout += s), true) }, stderr: { write: (s: string) => ((stderr += s), true) } } as unknown as CommandIO;
  const code = templateMain(args, io);
  return { stdout, stderr, code };
}

function templateMain(rawArgs: string[], io: CommandIO): number {
  const { values: f, positionals } = parseFlags(normalizeBoolFlags(rawArgs, ['include-crds', 'skip-tests', 'is-upgrade']), TEMPLATE_FLAGS);
  if (positionals.length < 1) throw new UsageError('"ripple helm template" requires at least 1 argument');
  if (positionals.length > 2) throw new UsageError(`expected at most two arguments, unexpected arguments: ${positionals.slice(2).join(', ')}`);
  const [name, chartRef] = positionals.length === 2 ? positionals : ['release-name', positionals[0]];
  const warn = (m: string) => {
    if (m.startsWith('WARNING:')) io.stderr.write(m + '\n');
  };
  try {
    let kubeVersion;
    if (f['kube-version'] !== undefined) kubeVersion = parseKubeVersion(f['kube-version']);
    const apis = (f['api-versions'] ?? []).flatMap((a) => a.split(',').map((s) => s.trim())).filter((s) => s !== '');
    const path = locateChart(chartRef);
    const values = mergeUserValues(readValuesFiles(f.values ?? []), f.set ?? [], f['set-string'] ?? []);
    const { chart } = loadChartFromDisk(path);
    const isUpgrade = f['is-upgrade'] === true && f['no-is-upgrade'] !== true;
    const r = renderChart(chart, {
      values,
      release: { name, namespace: f.namespace ?? 'default', revision: 1, isInstall: !isUpgrade, isUpgrade },
      capabilities: defaultCapabilities(kubeVersion, apis),
      warn,
      engine: { funcs: FUNC_OPTIONS },
    });
    io.stdout.write(formatTemplateOutput(r, { includeCrds: f['include-crds'] === true && f['no-include-crds'] !== true, skipTests: f['skip-tests'] === true && f['no-skip-tests'] !== true }));
    return ExitCode.Ok;
  } catch (e) {
    return fail(io, e);
  }
}

const SHOW_USAGE = (what: string) => `Usage:
  ripple helm show ${what} CHART

Prints the chart's ${what === 'values' ? 'values.yaml, as written' : 'Chart.yaml, as Helm re-marshals it'} (CHART is a directory or a .tgz), like \`helm show ${what}\`.
`;

const LINT_USAGE = `Usage:
  ripple helm lint CHART [-f FILE]... [--set K=V]... [--set-string K=V]... [-n NS]

Checks a chart before publishing: Chart.yaml validity and recommendations, values.yaml and values.schema.json,
and a render of every template (required/fail do not fail in lint mode, as in helm lint). Prints
"[SEVERITY] path: message" lines and helm lint's summary ("Error: 1 chart(s) linted, 1 chart(s) failed" on stderr
and exit code 1 when an error was found).
`;

const PACKAGE_USAGE = `Usage:
  ripple helm package DIR [-d DESTINATION]

Packages a chart directory into NAME-VERSION.tgz with the layout \`helm package\` produces (Chart.yaml
re-marshalled, values.yaml, values.schema.json, templates, files, subcharts under charts/), honouring .helmignore.
Prints "Successfully packaged chart and saved it to: PATH".
`;

/** commands are the `ripple helm …` subcommands. */
export const commands: Command[] = [
  {
    path: ['helm', 'template'],
    summary: 'Render a Helm chart locally, exactly as `helm template` prints it',
    usage: TEMPLATE_USAGE,
    run: async (args, io) => templateMain(args, io),
  },
  ...(['values', 'chart'] as const).map(
    (what): Command => ({
      path: ['helm', 'show', what],
      summary: what === 'values' ? "Print a chart's values.yaml (like `helm show values`)" : "Print a chart's Chart.yaml (like `helm show chart`)",
      usage: SHOW_USAGE(what),
      async run(args, io) {
        const { positionals } = parseFlags(args, {});
        if (positionals.length !== 1) throw new UsageError(`"ripple helm show ${what}" requires 1 argument`);
        try {
          const { chart } = loadChartFromDisk(locateChart(positionals[0]));
          if (what === 'chart') io.stdout.write(metadataYaml(chart.metadata!, true) + '\n');
          else if (chart.values !== null) for (const f of chart.raw) if (f.name === 'values.yaml') io.stdout.write(new TextDecoder().decode(f.data) + '\n');
          return ExitCode.Ok;
        } catch (e) {
          return fail(io, e);
        }
      },
    }),
  ),
  {
    path: ['helm', 'lint'],
    summary: 'Check a Helm chart for problems (Chart.yaml, values, schema, templates)',
    usage: LINT_USAGE,
    async run(args, io) {
      const { values: f, positionals } = parseFlags(args, {
        namespace: { type: 'string', short: 'n' },
        values: { type: 'string', short: 'f', multiple: true },
        set: { type: 'string', multiple: true },
        'set-string': { type: 'string', multiple: true },
      });
      if (positionals.length !== 1) throw new UsageError('"ripple helm lint" requires 1 argument');
      const dir = positionals[0];
      io.stdout.write(`==> Linting ${dir}\n`);
      let msgs;
      try {
        const values = mergeUserValues(readValuesFiles(f.values ?? []), f.set ?? [], f['set-string'] ?? []);
        const path = locateChart(dir);
        const files = statSync(path).isDirectory() ? readChartDir(path) : null;
        msgs = files !== null ? lintChart(files, values, f.namespace) : [];
      } catch (e) {
        if (!(e instanceof HelmError)) throw e;
        msgs = [{ severity: 'ERROR' as const, path: '', text: e.message }];
      }
      for (const m of msgs) io.stdout.write(`[${m.severity}] ${m.path}${m.path ? ': ' : ''}${m.text}\n`);
      const failed = msgs.some((m) => m.severity === 'ERROR');
      // helm lint: a blank line, then the summary — on stderr as an error when a chart failed.
      io.stdout.write('\n');
      if (failed) io.stderr.write('Error: 1 chart(s) linted, 1 chart(s) failed\n');
      else io.stdout.write('1 chart(s) linted, 0 chart(s) failed\n');
      return failed ? ExitCode.Failed : ExitCode.Ok;
    },
  },
  {
    path: ['helm', 'package'],
    summary: 'Package a chart directory into a versioned .tgz (like `helm package`)',
    usage: PACKAGE_USAGE,
    async run(args, io) {
      const { values: f, positionals } = parseFlags(args, { destination: { type: 'string', short: 'd' } });
      if (positionals.length !== 1) throw new UsageError('"ripple helm package" requires 1 argument');
      try {
        const path = locateChart(positionals[0]);
        if (!statSync(path).isDirectory()) throw new HelmError('load', `${positionals[0]} is not a directory`);
        const { chart } = loadChartFromDisk(path);
        const { filename, bytes } = packageChart(chart, Math.floor(Date.now() / 1000));
        const out = resolve(f.destination ?? '.', filename);
        writeFileSync(out, bytes);
        io.stdout.write(`Successfully packaged chart and saved it to: ${out}\n`);
        return ExitCode.Ok;
      } catch (e) {
        return fail(io, e);
      }
    },
  },
];
