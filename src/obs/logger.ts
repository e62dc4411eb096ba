// logger.ts: structured logs (pino). Components receive a Logger; only the CLI decides where logs go.
import { pino, type Logger as PinoLogger } from 'pino';

/** Logger is the structured logger every component receives (pino's interface). */
export type Logger = PinoLogger;

/** LogOptions selects level and destination; `pretty` prints one human line per entry for terminals. */
export interface LogOptions {
  level?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Where JSON lines go; defaults to stderr so stdout stays free for command output. */
  destination?: NodeJS.WritableStream;
  name?: string;
}

// Credentials never reach a log line, whichever component passes them along by mistake: a bearer token or a
// kubeconfig in a log file is a credential handed to everyone who can read logs.
const REDACT = ['token', 'bearerToken', 'authorization', 'kubeconfig', 'password'].flatMap((k) => [k, `*.${k}`, `*.*.${k}`]);

/** createLogger returns a pino logger writing JSON lines to stderr (or the given stream); fields named token,
 * bearerToken, authorization, kubeconfig or password (up to two levels deep) are written as "[REDACTED]". */
export function createLogger({ level = 'info', destination = process.stderr, name = 'ripple' }: LogOptions = {}): Logger {
  return pino({ name, level, base: { name }, timestamp: pino.stdTimeFunctions.isoTime, redact: { paths: REDACT, censor: '[REDACTED]' } }, destination as never);
}

let silent: Logger | undefined;

/** silentLogger returns the logger that drops everything (tests, benches; one for the process: each pino instance
 * opens its own stdout stream, and a fleet of a thousand clusters asked for one per component). */
export function silentLogger(): Logger {
  silent ??= pino({ level: 'silent' });
  return silent;
}
