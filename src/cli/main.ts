// main dispatches `ripple <command...> [flags]` to the command files found in ./commands.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ExitCode, UsageError, type Command, type CommandIO } from './command.js';

const VERSION = '0.1.0';

/** loadCommands imports every module in ./commands and returns their commands sorted by path. */
export async function loadCommands(): Promise<Command[]> {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'commands');
  const files = readdirSync(dir)
    .filter((f) => /\.(ts|js)$/.test(f) && !/\.(test|bench)\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'))
    .sort();
  const all: Command[] = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { commands?: Command[] };
    if (Array.isArray(mod.commands)) all.push(...mod.commands);
  }
  return all.sort((a, b) => a.path.join(' ').localeCompare(b.path.join(' ')));
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
    'Run `ripple <command> --help` for the flags of one command.',
    '',
  ].join('\n');
}

/** main runs the CLI with the given arguments and returns the process exit code. */
export async function main(
  argv: string[],
  io: CommandIO = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const commands = await loadCommands();
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    const target = argv[0] === 'help' ? findCommand(commands, argv.slice(1)) : undefined;
    io.stdout.write(target ? target.command.usage.trimEnd() + '\n' : overview(commands));
    return argv.length === 0 ? ExitCode.Usage : ExitCode.Ok;
  }
  if (argv[0] === '--version' || argv[0] === 'version') {
    io.stdout.write(`ripple ${VERSION}\n`);
    return ExitCode.Ok;
  }
  const found = findCommand(commands, argv);
  if (!found) {
    // A group word alone (`ripple get`) lists its subcommands.
    const group = commands.filter((c) => c.path[0] === argv[0]);
    if (group.length > 0) {
      // `ripple get --help` lists the subcommands on stdout (exit 0); `ripple get` or `ripple get nope` on stderr.
      const width = Math.max(...group.map((c) => c.path.join(' ').length));
      const list = group.map((c) => `  ripple ${c.path.join(' ').padEnd(width)}  ${c.summary}`).join('\n');
      const help = argv.length === 2 && (argv[1] === '--help' || argv[1] === '-h');
      if (help) {
        io.stdout.write(`Usage: ripple ${argv[0]} <subcommand> [flags]\n\nSubcommands:\n${list}\n\nRun \`ripple ${argv[0]} <subcommand> --help\` for its flags.\n`);
        return ExitCode.Ok;
      }
      const what = argv.length === 1 ? `"ripple ${argv[0]}" needs a subcommand` : `"ripple ${argv[0]}" has no subcommand "${argv[1]}"`;
      io.stderr.write(`ripple: ${what}:\n${list}\n`);
    } else {
      io.stderr.write(`ripple: unknown command "${argv[0]}". Run \`ripple --help\` to list commands.\n`);
    }
    return ExitCode.Usage;
  }
  const { command, rest } = found;
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(command.usage.trimEnd() + '\n');
    return ExitCode.Ok;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`ripple ${command.path.join(' ')}: ${err.message}\n\n${command.usage.trimEnd()}\n`);
      return ExitCode.Usage;
    }
    throw err;
  }
}
