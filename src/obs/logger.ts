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

/** createLogger returns a pino logger writing JSON lines to stderr (or the given stream). */
export function createLogger({ level = 'info', destination = process.stderr, name = 'ripple' }: LogOptions = {}): Logger {
  return pino({ name, level, base: { name }, timestamp: pino.stdTimeFunctions.isoTime }, destination as never);
}

/** silentLogger returns a logger that drops everything (tests, benches). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
