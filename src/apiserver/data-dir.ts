// Data at rest: the data directory holds every cluster's token and every Secret (state.db and its WAL), so it is
// private to its owner from the first byte. The directory is 0700 and every file in it 0600 when created; at start,
// wider permissions left by an older version (or a careless chmod) are narrowed and reported.
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** DATA_DIR_MODE is the data directory's mode: only its owner may list or enter it. */
export const DATA_DIR_MODE = 0o700;
/** DATA_FILE_MODE is the mode of every file in the data directory (database, WAL, SHM, log, kubeconfig, keys). */
export const DATA_FILE_MODE = 0o600;

// Files whose contents are secret or reveal secrets; each is narrowed at start when it exists. SQLite creates the
// WAL and SHM with the permissions of the database file, so state.db being 0600 before SQLite opens it is what
// keeps them private too.
const PRIVATE_FILES = ['state.db', 'state.db-wal', 'state.db-shm', 'state.db-journal', 'ripple.log', 'kubeconfig', 'tls.key', 'tls.crt'];

/** prepareDataDir creates the data directory (0700) when missing, narrows wider permissions of it and of the files
 * it holds, and pre-creates `files` with mode 0600 so that nothing written into them is ever readable by others.
 * It returns one warning per permission it had to fix. */
export function prepareDataDir(dir: string, files: readonly string[] = []): string[] {
  const warnings: string[] = [];
  // The umask narrows mkdir's mode further, never widens it: the chmod below covers an existing directory.
  mkdirSync(dir, { recursive: true, mode: DATA_DIR_MODE });
  const narrow = (path: string, want: number): void => {
    let mode: number;
    try {
      mode = statSync(path).mode & 0o777;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    if ((mode & ~want) === 0) return;
    chmodSync(path, want);
    warnings.push(`${path} had mode ${mode.toString(8).padStart(4, '0')}, readable by others; changed to ${want.toString(8).padStart(4, '0')}`);
  };
  narrow(dir, DATA_DIR_MODE);
  for (const f of new Set([...PRIVATE_FILES, ...files])) narrow(join(dir, f), DATA_FILE_MODE);
  for (const f of files) createPrivateFile(join(dir, f));
  return warnings;
}

/** createPrivateFile creates an empty file with mode 0600 when it does not exist (an existing one is left as is). */
export function createPrivateFile(path: string): void {
  closeSync(openSync(path, 'a', DATA_FILE_MODE));
}
