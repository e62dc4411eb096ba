// kustomize: `ripple kustomize build DIR` — a kustomization built offline exactly as `kubectl kustomize DIR` prints
// it (Kustomize v5.5.0, kubectl 1.32), through src/kustomize. The directory tree is read from disk on demand.
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildKustomization, KustomizeError, type FileTree } from '../../kustomize/index.js';
import { ExitCode, UsageError, parseFlags, type Command, type CommandIO } from '../command.js';

const USAGE = `Usage:
  ripple kustomize build DIR

Builds the kustomization in DIR and prints the resulting objects as \`kubectl kustomize DIR\` does (Kustomize v5.5.0,
as embedded in kubectl 1.32): resources, bases, components, generators with hash suffixes, namespace, name
prefixes/suffixes with name references fixed, labels, annotations, images, replicas, patches (strategic merge and
JSON 6902), replacements and vars, crds and configurations, sortOptions.

Nothing is fetched: remote bases (URLs, git specs) are refused with an error, and generator/transformer plugins and
helmCharts are not run. Deprecation warnings go to stderr as Kustomize writes them.

Exit status: 0 on success; 1 when the build fails (the message, as \`error: ...\`, on stderr); 2 for a bad command line.

Examples:
  ripple kustomize build overlays/prod
  ripple kustomize build . > rendered.yaml
`;

/** diskTree is a FileTree over the local file system (symbolic links followed). */
export function diskTree(): FileTree {
  return {
    readFile(p) {
      try {
        if (!statSync(p).isFile()) return undefined;
        return readFileSync(p);
      } catch {
        return undefined;
      }
    },
    isDir(p) {
      try {
        return statSync(p).isDirectory();
      } catch {
        return false;
      }
    },
  };
}

async function runBuild(args: string[], io: CommandIO): Promise<number> {
  const { positionals } = parseFlags(args, {});
  if (positionals.length > 1) throw new UsageError(`expected one directory, got ${positionals.length}`);
  const dir = resolve(positionals[0] ?? '.');
  try {
    const r = buildKustomization(diskTree(), dir, { onWarning: (w) => io.stderr.write(`${w}\n`) });
    io.stdout.write(r.yaml);
    return ExitCode.Ok;
  } catch (e) {
    if (e instanceof KustomizeError) {
      io.stderr.write(`error: ${e.message.replace(/\n+$/, '')}\n`);
      return ExitCode.Failed;
    }
    throw e;
  }
}

/** commands registers `ripple kustomize build`. */
export const commands: Command[] = [
  {
    path: ['kustomize', 'build'],
    summary: 'build a kustomization directory offline, exactly as `kubectl kustomize DIR` prints it',
    usage: USAGE,
    run: runBuild,
  },
];
