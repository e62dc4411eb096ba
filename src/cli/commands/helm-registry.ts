// helm-registry: `ripple helm push` and `ripple helm pull` — charts to and from OCI registries (and, for pull,
// classic chart repositories) with Ripple's own client, laid out exactly as `helm push` lays them out, so `helm pull`
// and Sveltos read what Ripple pushes and the other way round.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ChartCache, ChartSourceError, fetchChart, pushChart, type ChartSpec } from '../../charts/index.js';
import { ExitCode, parseFlags, UsageError, type Command, type CommandIO } from '../command.js';

const TRANSPORT_FLAGS = {
  'plain-http': { type: 'boolean' },
  'insecure-skip-tls-verify': { type: 'boolean' },
  'ca-file': { type: 'string' },
  username: { type: 'string' },
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
} as const;

const TRANSPORT_USAGE = `  --plain-http                 talk http:// to the registry instead of https://
  --insecure-skip-tls-verify   do not verify the server's certificate
  --ca-file FILE               trust this PEM CA bundle for the server's certificate
  --username USER              credentials (registry: Basic or token auth; repository: basic auth)
  --password PASS
  --password-stdin             read the password from stdin`;

const PUSH_USAGE = `Usage:
  ripple helm push CHART.tgz oci://HOST/PATH [flags]

Uploads a packaged chart to an OCI registry as HOST/PATH/NAME:VERSION (NAME and VERSION from the archive's
Chart.yaml; a "+" in the version is stored as "_"), the way \`helm push\` does: the chart layer
(application/vnd.cncf.helm.chart.content.v1.tar+gzip), the config (Chart.yaml metadata as JSON,
application/vnd.cncf.helm.config.v1+json) and an OCI manifest with the org.opencontainers.image.* annotations.
Prints the reference and the manifest digest.

Flags:
${TRANSPORT_USAGE}

Examples:
  ripple helm push web-1.0.0.tgz oci://localhost:5000/charts --plain-http
  ripple helm push web-1.0.0.tgz oci://registry.example.com/team --username ci --password-stdin < token
`;

const PULL_USAGE = `Usage:
  ripple helm pull oci://HOST/PATH/NAME [--version V] [flags]
  ripple helm pull NAME --repo URL [--version V] [flags]

Downloads a chart archive into the current directory (or --destination) as NAME-VERSION.tgz. --version is an exact
version or a semver constraint (">=1.2 <2", "~1.2", "^1", "1.2.x"); without it the latest stable version is taken,
as Helm does. Downloads are verified against their digests and kept in a content-addressed cache (--cache-dir,
default $XDG_CACHE_HOME/ripple/charts), so a chart is downloaded once.

Flags:
  --version V                  exact version or constraint (default: latest stable)
  --repo URL                   a classic chart repository (index.yaml) instead of an oci:// reference
  -d, --destination DIR        where to write the archive (default: .)
  --cache-dir DIR              chart cache directory
  --pass-credentials           send --username/--password to chart URLs on other hosts too (repositories)
${TRANSPORT_USAGE}

Examples:
  ripple helm pull oci://localhost:5000/charts/web --version '^1.0' --plain-http
  ripple helm pull kyverno --repo https://kyverno.github.io/kyverno/ --version 3.2.6
`;

async function readStdin(io: CommandIO): Promise<string> {
  let s = '';
  for await (const c of io.stdin) s += String(c);
  return s.replace(/\r?\n$/, '');
}

type TransportValues = { [K in keyof typeof TRANSPORT_FLAGS]?: (typeof TRANSPORT_FLAGS)[K]['type'] extends 'boolean' ? boolean : string };

async function transport(v: TransportValues, io: CommandIO) {
  if (v.password !== undefined && v['password-stdin']) throw new UsageError('--password and --password-stdin are mutually exclusive');
  const password = v['password-stdin'] ? await readStdin(io) : v.password;
  if ((v.username === undefined) !== (password === undefined)) throw new UsageError('--username and a password go together');
  const ca = v['ca-file'] !== undefined ? await readFile(v['ca-file'], 'utf8') : undefined;
  return { plainHTTP: v['plain-http'], insecureSkipTLSVerify: v['insecure-skip-tls-verify'], ca, username: v.username, password };
}

// fail prints a chart-source error and picks the exit code: the server's fault or the input's.
function fail(cmd: string, e: unknown, io: CommandIO): number {
  if (e instanceof ChartSourceError) {
    io.stderr.write(`ripple ${cmd}: ${e.message}\n`);
    return e.code === 'Unreachable' || e.code === 'AuthFailed' ? ExitCode.Unavailable : ExitCode.BadInput;
  }
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') {
    io.stderr.write(`ripple ${cmd}: ${(e as Error).message}\n`);
    return ExitCode.BadInput;
  }
  throw e;
}

function defaultCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'ripple', 'charts');
}

export const commands: Command[] = [
  {
    path: ['helm', 'push'],
    summary: 'Push a packaged chart (.tgz) to an OCI registry, as `helm push` does',
    usage: PUSH_USAGE,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, TRANSPORT_FLAGS);
      if (positionals.length !== 2) throw new UsageError('want CHART.tgz and oci://HOST/PATH');
      const [file, target] = positionals;
      if (!target.startsWith('oci://')) throw new UsageError(`the target must be an oci:// reference, not ${JSON.stringify(target)}`);
      try {
        const opts = await transport(values, io);
        const archive = await readFile(file);
        // The created annotation is the only clock reading; Helm writes it in UTC, to the second.
        const createdAt = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
        const r = await pushChart(archive, target, { ...opts, createdAt });
        io.stdout.write(`Pushed: ${r.ref}\nDigest: ${r.manifestDigest}\n`);
        return ExitCode.Ok;
      } catch (e) {
        return fail('helm push', e, io);
      }
    },
  },
  {
    path: ['helm', 'pull'],
    summary: 'Download a chart from an OCI registry or a chart repository (version constraints like Helm)',
    usage: PULL_USAGE,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        ...TRANSPORT_FLAGS,
        version: { type: 'string' },
        repo: { type: 'string' },
        destination: { type: 'string', short: 'd' },
        'cache-dir': { type: 'string' },
        'pass-credentials': { type: 'boolean' },
      });
      if (positionals.length !== 1) throw new UsageError('want one chart: oci://HOST/PATH/NAME, or NAME with --repo URL');
      const [chart] = positionals;
      const oci = chart.startsWith('oci://');
      if (oci && values.repo !== undefined) throw new UsageError('--repo is for classic repositories; an oci:// reference names its registry');
      if (!oci && values.repo === undefined) throw new UsageError(`${JSON.stringify(chart)} is not an oci:// reference: give the repository with --repo URL`);
      try {
        const t = await transport(values, io);
        const spec: ChartSpec = {
          repositoryURL: oci ? chart.slice(0, chart.lastIndexOf('/')) : values.repo!,
          repositoryName: '',
          chartName: chart,
          chartVersion: values.version ?? '',
          credentials: t.username !== undefined ? { username: t.username, password: t.password ?? '' } : undefined,
          ca: t.ca,
          insecureSkipTLSVerify: t.insecureSkipTLSVerify,
          plainHTTP: t.plainHTTP,
          passCredentialsAll: values['pass-credentials'],
        };
        const got = await fetchChart(spec, new ChartCache(resolve(values['cache-dir'] ?? defaultCacheDir())));
        const dest = resolve(values.destination ?? '.');
        await mkdir(dest, { recursive: true });
        const out = join(dest, `${got.name}-${got.version}.tgz`);
        await writeFile(out, await readFile(got.path));
        if (oci) io.stdout.write(`Pulled: ${got.source.replace(/^oci:\/\//, '')}\nDigest: ${got.manifestDigest ?? got.digest}\n`);
        io.stderr.write(`ripple helm pull: wrote ${out}${got.cached ? ' (from the cache)' : ''}\n`);
        return ExitCode.Ok;
      } catch (e) {
        return fail('helm pull', e, io);
      }
    },
  },
];
