// data-dir-lock: one process per data directory. `ripple up` and `ripple apiserver` take DIR/ripple.lock before they
// open anything else in DIR, and hold it until the process ends; a second one on the same DIR is refused, naming the
// holder, before it touches the kubeconfig or the database (two servers on one SQLite file and a rewritten kubeconfig
// would be a split brain).
//
// The lock file is created complete and atomically: written under a private name, then hard-linked to ripple.lock
// (link(2) fails with EEXIST if the lock exists; unlike open(O_EXCL) followed by a write, a reader never sees a
// half-written lock). It records the holder's pid and, on Linux, the process start time from /proc, so a lock left by
// a killed process is recognised as stale even if its pid has been reused, and taken over.
import { hostname } from 'node:os';
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** LOCK_FILE is the lock's name inside the data directory. */
export const LOCK_FILE = 'ripple.lock';

/** LockOwner is what a lock file records about the process holding it. */
export interface LockOwner {
  pid: number;
  /** The process start time in clock ticks since boot (/proc/PID/stat field 22); absent where there is no /proc. */
  start?: string;
  host: string;
  /** The command that holds it, e.g. `ripple up`. */
  command: string;
  /** When it was taken (ISO 8601). */
  since: string;
}

/** DataDirLockedError says the data directory is held by another live process. */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
  constructor(
    readonly dir: string,
    readonly owner: LockOwner,
  ) {
    super(`data directory ${dir} is in use by ${owner.command} (pid ${owner.pid}${owner.host !== hostname() ? ` on ${owner.host}` : ''}, since ${owner.since})`);
  }
}

/** DataDirLock is a held lock; release() gives it up (also done when the process exits). */
export interface DataDirLock {
  readonly path: string;
  release(): void;
}

// processStart reads a process's start time from /proc (Linux); undefined where that is not available.
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name (which may contain spaces) start at field 3; starttime is 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

// alive says whether the recorded owner is still running: the pid exists (signal 0; EPERM means it exists but is
// another user's) and, where /proc tells, it is the same process and not a later one given the same pid.
function alive(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = processStart(owner.pid);
  return owner.start === undefined || start === undefined || start === owner.start;
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const o = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    return typeof o.pid === 'number' && Number.isInteger(o.pid) && o.pid > 0 ? { host: '', command: 'ripple', since: '?', ...o, pid: o.pid } : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw err;
    return undefined; // unreadable or not ours: nothing can hold it
  }
}

/** lockDataDir creates dir if needed and takes its lock for this process, or throws DataDirLockedError naming the
 * live holder. A stale lock (its process gone) is taken over. Other I/O errors (EACCES, EROFS…) are thrown as they are. */
export function lockDataDir(dir: string, command: string): DataDirLock {
  // 0700 like prepareDataDir: the lock is the first thing written, so a fresh directory is born private.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, start: processStart(process.pid), host: hostname(), command, since: new Date().toISOString() };
  const text = JSON.stringify(me) + '\n';
  const tmp = join(dir, `${LOCK_FILE}.${process.pid}.tmp`);
  writeFileSync(tmp, text);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, path);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw err;
      }
      let owner: LockOwner | undefined;
      try {
        owner = readOwner(path);
      } catch {
        continue; // released between our link and our read: try again
      }
      // A lock from another host cannot be checked: it holds.
      if (owner && (owner.host !== me.host || alive(owner))) throw new DataDirLockedError(dir, owner);
      // Stale: move it aside and retry. If what we moved is not the lock we judged stale (another process recovered
      // it and took it meanwhile), put that one back.
      const aside = join(dir, `${LOCK_FILE}.stale.${process.pid}`);
      try {
        renameSync(path, aside);
        let moved: LockOwner | undefined;
        try {
          moved = readOwner(aside);
        } catch {
          moved = undefined;
        }
        if (moved && owner && (moved.pid !== owner.pid || moved.since !== owner.since)) {
          try {
            linkSync(aside, path);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
          }
        }
        unlinkSync(aside);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  } finally {
    unlinkSync(tmp);
  }
  // Whoever recovered a stale lock at the same moment may have replaced ours: it is ours only if it says so.
  const held = readOwner(path);
  if (!held || held.pid !== me.pid || held.since !== me.since) throw new DataDirLockedError(dir, held ?? me);

  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    try {
      const cur = readOwner(path);
      if (cur && cur.pid === me.pid && cur.since === me.since) unlinkSync(path);
    } catch {
      // already gone: nothing to release
    }
  };
  process.on('exit', release);
  return { path, release };
}
