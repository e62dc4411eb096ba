// Command describes one `ripple` subcommand. Every file in src/cli/commands/ exports `commands: Command[]`;
// the dispatcher discovers them, so adding a command never touches a shared registry.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { didYouMean } from './suggest.js';

/** ExitCode is the closed set of process exit codes `ripple` uses. */
export const ExitCode = {
  Ok: 0,
  /** The command ran and found a failure it was asked to detect (a failed test case, an unmet expectation). */
  Failed: 1,
  /** The command line was wrong: unknown command, bad flag, missing argument. */
  Usage: 2,
  /** Input could not be read or was invalid (file missing, YAML malformed, object invalid). */
  BadInput: 3,
  /** A server or cluster could not be reached or answered with an error, or a port or data directory is in use. */
  Unavailable: 4,
  /** Interrupted by a signal. */
  Interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** EXIT_CODES_HELP documents ExitCode for `ripple --help`; every command keeps to it. */
export const EXIT_CODES_HELP = `Exit codes:
  0    success
  1    the command ran and found the failure it checks for (a failed test case, an unmet expectation)
  2    bad command line: unknown command or flag, missing or invalid argument
  3    unreadable or invalid input: file missing, YAML malformed, object invalid, unusable data directory
  4    unavailable: a server or cluster unreachable or answering with an error, a port or data directory in use
  130  interrupted (Ctrl-C)
`;

/** CommandIO carries the streams a command writes to, so tests can capture them. */
export interface CommandIO {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Command is one subcommand: its words (`['test', 'events']`), a one-line summary, full usage text and a runner. */
export interface Command {
  /** The words that select this command, e.g. ['manifests', 'crds']. */
  readonly path: readonly string[];
  readonly summary: string;
  /** Full help: synopsis, flags, examples. Printed by `ripple <cmd> --help`. */
  readonly usage: string;
  run(args: string[], io: CommandIO): Promise<number>;
}

/** UsageError is thrown by a command for a bad command line; the dispatcher prints it with the usage text. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** parseFlags wraps node:util parseArgs and turns its errors into UsageErrors that name the flag, with a
 * suggestion for a mistyped one (`--demoo` → `--demo`). */
export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: T,
  { allowPositionals = true }: { allowPositionals?: boolean } = {},
) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (err) {
    if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
      throw new UsageError(describeParseError(args, options, String(err.code)) ?? err.message, { cause: err });
    }
    throw err;
  }
}

// describeParseError finds the argument parseArgs rejected by scanning args itself (parseArgs says which only in its
// message text) and says what is wrong in our words; undefined leaves parseArgs' own message.
function describeParseError(args: string[], options: NonNullable<ParseArgsConfig['options']>, code: string): string | undefined {
  const longs = Object.keys(options);
  const shorts = new Map(Object.entries(options).flatMap(([name, o]) => (o.short ? [[o.short, name] as const] : [])));
  const flagName = (a: string) => (a.startsWith('--') ? a.slice(2).split('=')[0] : undefined);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') break;
    if (!a.startsWith('-') || a === '-') continue;
    const long = flagName(a);
    const name = long ?? shorts.get(a[1]);
    if (name === undefined || !(name in options)) {
      if (code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') continue;
      const shown = long !== undefined ? `--${long}` : a.slice(0, 2);
      return `unknown flag ${shown}${didYouMean(long ?? a.slice(1), long !== undefined ? longs : longs.filter((n) => n.length > 1), (s) => `--${s}`)}`;
    }
    const o = options[name];
    const inline = long !== undefined ? a.includes('=') : a.length > 2;
    if (o.type === 'string' && !inline) {
      const next = args[i + 1];
      if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && next === undefined) return `flag --${name} needs a value`;
      if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && next.startsWith('-')) {
        return `flag --${name} needs a value (write --${name}=${next} if ${JSON.stringify(next)} is the value)`;
      }
      i++;
    } else if (o.type === 'boolean' && inline && long !== undefined && code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      return `flag --${name} takes no value`;
    }
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `unexpected argument ${JSON.stringify(args.find((a) => !a.startsWith('-')) ?? '')}`;
  return undefined;
}

/** oneOf returns value if it is one of allowed, or throws a UsageError listing them with a suggestion
 * (`-o yml`: `--output must be table, wide, yaml or json, not "yml"; did you mean "yaml"?`). */
export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  const list = allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}` : allowed.join('');
  throw new UsageError(`${flag} must be ${list}, not ${JSON.stringify(value)}${didYouMean(value, allowed)}`);
}

/** synopsis is the first paragraph of a usage text (its `Usage:` lines): what main prints after a usage error. */
export function synopsis(usage: string): string {
  const lines = usage.split('\n');
  const end = lines.findIndex((l) => l.trim() === '');
  return lines.slice(0, end < 0 ? lines.length : end).join('\n');
}

/** portFlag parses an optional `--NAME P` port value (0–65535; 0 means any free port), or throws a UsageError. */
export function portFlag(name: string, value: string | undefined, { min = 0 } = {}): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min || n > 65535) throw new UsageError(`--${name} must be a port number, not ${JSON.stringify(value)}`);
  return n;
}
