// Command describes one `ripple` subcommand. Every file in src/cli/commands/ exports `commands: Command[]`;
// the dispatcher discovers them, so adding a command never touches a shared registry.
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** ExitCode is the closed set of process exit codes `ripple` uses. */
export const ExitCode = {
  Ok: 0,
  /** The command ran and found a failure it was asked to detect (a failed test case, an unmet expectation). */
  Failed: 1,
  /** The command line was wrong: unknown command, bad flag, missing argument. */
  Usage: 2,
  /** Input could not be read or was invalid (file missing, YAML malformed, object invalid). */
  BadInput: 3,
  /** A server or cluster could not be reached or answered with an error. */
  Unavailable: 4,
  /** Interrupted by a signal. */
  Interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

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

/** parseFlags wraps node:util parseArgs and turns its errors into UsageError with the flag named. */
export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: T,
  { allowPositionals = true }: { allowPositionals?: boolean } = {},
) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (err) {
    if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
      throw new UsageError(err.message);
    }
    throw err;
  }
}

/** portFlag parses an optional `--NAME P` port value (0–65535; 0 means any free port), or throws a UsageError. */
export function portFlag(name: string, value: string | undefined, { min = 0 } = {}): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min || n > 65535) throw new UsageError(`--${name} must be a port number, not ${JSON.stringify(value)}`);
  return n;
}
