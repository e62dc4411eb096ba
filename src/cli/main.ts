// main dispatches `ripple <command...> [flags]` to the command files found in ./commands.
//
// Start-up cost is the modules a command imports, so main imports as little as it can: `--version` imports no
// command, and `ripple get …` imports only the files named after the first word (`get.ts`, `get-*.ts`; a test keeps
// every command file to that convention). Everything else (help, completion, a mistyped command) loads them all.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EXIT_CODES_HELP, ExitCode, UsageError, synopsis, type Command, type CommandIO } from './command.js';
import { didYouMean } from './suggest.js';

/** VERSION is ripple's version, as package.json says. */
export const VERSION = '0.1.0';

/** CommandFile is one module of ./commands: its name without extension and the URL to import it from. */
export interface CommandFile {
  readonly name: string;
  readonly url: string;
}

// The commands folder: next to this module in the sources (src/cli/commands) and in the compiled build
// (dist/cli/commands), unless the bundler moved this module into a shared chunk (dist/chunks/), whose sibling it is.
function commandsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, 'commands'), join(here, '..', 'cli', 'commands')];
  return candidates.find((d) => existsSync(d)) ?? candidates[0];
}

/** commandFiles lists the command modules (.ts in the sources, .js in the build; never tests or benchmarks). */
export function commandFiles(): CommandFile[] {
  const dir = commandsDir();
  return readdirSync(dir)
    .filter((f) => /\.(ts|js)$/.test(f) && !/\.(test|bench)\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'))
    .sort()
    .map((f) => ({ name: f.replace(/\.(ts|js)$/, ''), url: pathToFileURL(join(dir, f)).href }));
}

/** importCommands imports the given command modules and returns their commands sorted by path. */
export async function importCommands(files: readonly CommandFile[]): Promise<Command[]> {
  const mods = await Promise.all(files.map(async (f) => (await import(f.url)) as { commands?: Command[] }));
  const all = mods.flatMap((m) => (Array.isArray(m.commands) ? m.commands : []));
  return all.sort((a, b) => a.path.join(' ').localeCompare(b.path.join(' ')));
}

/** loadCommands imports every module in ./commands and returns their commands sorted by path. */
export async function loadCommands(): Promise<Command[]> {
  return importCommands(commandFiles());
}

/** commandFileWord is the first command word a command file may define: its name up to the first `-`. */
export function commandFileWord(fileName: string): string {
  return fileName.split('-')[0];
}

/** definesWord says whether a command file may define commands starting with `word`: the file is named after the
 * word (a hyphenated command such as publish-cloudevent), or after it followed by `-…` (get-addons for get). */
export function definesWord(fileName: string, word: string): boolean {
  return fileName === word || commandFileWord(fileName) === word;
}

/** findCommand returns the command whose path is the longest prefix of args. */
export function findCommand(commands: Command[], args: string[]): { command: Command; rest: string[] } | undefined {
  let best: Command | undefined;
  for (const c of commands) {
    if (c.path.length <= args.length && c.path.every((w, i) => args[i] === w)) {
      if (!best || c.path.length > best.path.length) best = c;
    }
  }
  return best ? { command: best, rest: args.slice(best.path.length) } : undefined;
}

function overview(commands: Command[]): string {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length), 8);
  const lines = commands.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
  return [
    'ripple: event-driven add-on distribution for fleets of Kubernetes clusters (Sveltos-compatible).',
    '',
    'Usage: ripple <command> [flags]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `ripple <command> --help` for the flags of one command, `ripple --version` for the version.',
    '',
    EXIT_CODES_HELP,
  ].join('\n');
}

const isHelp = (a: string | undefined) => a === '--help' || a === '-h';

/** main runs the CLI with the given arguments and returns the process exit code. */
export async function main(
  argv: string[],
  io: CommandIO = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  if (argv[0] === '--version') {
    io.stdout.write(`ripple ${VERSION}\n`);
    return ExitCode.Ok;
  }
  const files = commandFiles();
  if (argv.length === 0 || isHelp(argv[0]) || argv[0] === 'help') {
    const commands = await importCommands(files);
    const target = argv[0] === 'help' && argv.length > 1 ? findCommand(commands, argv.slice(1)) : undefined;
    if (argv[0] === 'help' && argv.length > 1 && !target) return unknownCommand(commands, argv.slice(1), io);
    io.stdout.write(target ? target.command.usage.trimEnd() + '\n' : overview(commands));
    return argv.length === 0 ? ExitCode.Usage : ExitCode.Ok;
  }
  const own = files.filter((f) => definesWord(f.name, argv[0]));
  let found = own.length > 0 ? findCommand(await importCommands(own), argv) : undefined;
  if (!found) {
    const commands = await importCommands(files);
    found = findCommand(commands, argv);
    if (!found) return unknownCommand(commands, argv, io);
  }
  const { command, rest } = found;
  const name = `ripple ${command.path.join(' ')}`;
  if (rest.some(isHelp)) {
    io.stdout.write(command.usage.trimEnd() + '\n');
    return ExitCode.Ok;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`${name}: ${err.message}\n\n${synopsis(command.usage)}\nRun \`${name} --help\` for the flags and examples.\n`);
      return ExitCode.Usage;
    }
    throw err;
  }
}

// unknownCommand explains a command line that selects no command: a group word alone or with an unknown
// subcommand (listing the group), or an unknown command (with the closest names).
function unknownCommand(commands: Command[], argv: string[], io: CommandIO): number {
  const group = commands.filter((c) => c.path[0] === argv[0] && c.path.length > 1);
  if (group.length === 0) {
    const hint = didYouMean(argv[0], new Set(commands.map((c) => c.path[0])));
    io.stderr.write(`ripple: unknown command "${argv[0]}"${hint}\nRun \`ripple --help\` to list commands.\n`);
    return ExitCode.Usage;
  }
  // `ripple get --help` lists the subcommands on stdout (exit 0); `ripple get` or `ripple get nope` on stderr.
  const width = Math.max(...group.map((c) => c.path.join(' ').length));
  const list = group.map((c) => `  ripple ${c.path.join(' ').padEnd(width)}  ${c.summary}`).join('\n');
  if (argv.length === 2 && isHelp(argv[1])) {
    io.stdout.write(`Usage: ripple ${argv[0]} <subcommand> [flags]\n\nSubcommands:\n${list}\n\nRun \`ripple ${argv[0]} <subcommand> --help\` for its flags.\n`);
    return ExitCode.Ok;
  }
  const what =
    argv.length === 1 || argv[1].startsWith('-')
      ? `"ripple ${argv[0]}" needs a subcommand.`
      : `"ripple ${argv[0]}" has no subcommand "${argv[1]}"${didYouMean(argv[1], group.map((c) => c.path[1])) || '.'}`;
  io.stderr.write(`ripple: ${what}\nSubcommands:\n${list}\n`);
  return ExitCode.Usage;
}
