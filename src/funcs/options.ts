// options.ts: the ports the function library needs from the outside world. The library itself does no I/O: time,
// randomness, the environment and name resolution all come in through FuncOptions, so templates render the same
// way in tests, in the CLI and in the controllers.
import { GoFuncError } from '../gotemplate/index.js';

/** Clock tells the current time; `now` returns milliseconds since the Unix epoch (fractions allowed). */
export interface Clock {
  now(): number;
}

/** RandomSource fills byte arrays with random bytes (cryptographic quality where keys or salts depend on it). */
export interface RandomSource {
  fill(bytes: Uint8Array): void;
}

/** HostResolver returns the addresses of a host name synchronously (templates render synchronously). */
export type HostResolver = (name: string) => readonly string[];

/** FuncOptions configures the function maps; every field is optional and has a safe default. */
export interface FuncOptions {
  /**
   * Source of `now`, `date`, `ago`, certificate validity. Pure code cannot read the system clock, so there is no
   * default: without a clock these functions fail with an error naming this option (the CLI and the controllers
   * pass one).
   */
  clock?: Clock;
  /** Source of `rand*`, `uuidv4`, `shuffle`, salts, IVs and serial numbers; default: the platform CSPRNG. */
  random?: RandomSource;
  /**
   * The environment `env` and `expandenv` read. Absent (the default), both fail with an error that names this
   * option: Ripple does not expose the controller's environment to templates unless asked to (Sveltos does).
   */
  env?: Readonly<Record<string, string>>;
  /** Name resolution for `getHostByName`. Absent (the default), `getHostByName` fails naming this option. */
  resolveHost?: HostResolver;
  /**
   * The IANA zone Go's `time.Local` stands for (`date`, `toDate`, `now`); default 'UTC', which is what a
   * controller container without TZ data uses.
   */
  localZone?: string;
  /** Longest list `until`, `untilStep` and `seq` may build (default 100,000): beyond it they fail, before
   * allocating, instead of exhausting the process (`until 100000000` would need gigabytes; each element is an
   * object of its own). */
  maxListLength?: number;
  /** Longest string `repeat`, `indent`, `nindent`, `rand*` and `randBytes` may build, in characters (default 16 MiB). */
  maxStringLength?: number;
}

/** DEFAULT_MAX_LIST_LENGTH is FuncOptions.maxListLength's default. */
export const DEFAULT_MAX_LIST_LENGTH = 100_000;
/** DEFAULT_MAX_STRING_LENGTH is FuncOptions.maxStringLength's default. */
export const DEFAULT_MAX_STRING_LENGTH = 16 * 1024 * 1024;

/** cryptoRandom fills from the Web Crypto CSPRNG, chunked to its 64 KiB limit per call. */
export const cryptoRandom: RandomSource = {
  fill(bytes) {
    for (let i = 0; i < bytes.length; i += 65536) {
      globalThis.crypto.getRandomValues(bytes.subarray(i, Math.min(bytes.length, i + 65536)));
    }
  },
};

/** ResolvedOptions is FuncOptions with defaults applied. */
export interface ResolvedOptions {
  readonly clock: Clock | undefined;
  readonly random: RandomSource;
  readonly env: Readonly<Record<string, string>> | undefined;
  readonly resolveHost: HostResolver | undefined;
  readonly localZone: string;
  readonly maxListLength: number;
  readonly maxStringLength: number;
}

/** resolveOptions applies the defaults. */
export function resolveOptions(opts: FuncOptions = {}): ResolvedOptions {
  return {
    clock: opts.clock,
    random: opts.random ?? cryptoRandom,
    env: opts.env,
    resolveHost: opts.resolveHost,
    localZone: opts.localZone ?? 'UTC',
    maxListLength: opts.maxListLength ?? DEFAULT_MAX_LIST_LENGTH,
    maxStringLength: opts.maxStringLength ?? DEFAULT_MAX_STRING_LENGTH,
  };
}

/** checkListLength fails (before anything is allocated) when fn would build a list longer than the budget allows. */
export function checkListLength(o: ResolvedOptions, fn: string, n: number): void {
  if (n > o.maxListLength) throw new GoFuncError(`${fn}: a list of ${n} elements is more than the render budget allows (${o.maxListLength})`);
}

/** checkStringLength fails (before anything is allocated) when fn would build a string longer than the budget allows. */
export function checkStringLength(o: ResolvedOptions, fn: string, n: number): void {
  if (n > o.maxStringLength) throw new GoFuncError(`${fn}: a string of ${n} characters is more than the render budget allows (${o.maxStringLength})`);
}

/** randomBytes draws n bytes from the configured source. */
export function randomBytes(o: ResolvedOptions, n: number): Uint8Array {
  const b = new Uint8Array(n);
  o.random.fill(b);
  return b;
}

/** randomInt returns a uniform integer in [0, n) from the configured source (rejection sampling, no modulo bias). */
export function randomInt(o: ResolvedOptions, n: number): number {
  if (n <= 1) return 0;
  const limit = Math.floor(0x1_0000_0000 / n) * n;
  const b = new Uint8Array(4);
  for (;;) {
    o.random.fill(b);
    const v = ((b[0] << 24) >>> 0) + (b[1] << 16) + (b[2] << 8) + b[3];
    if (v < limit) return v % n;
  }
}
