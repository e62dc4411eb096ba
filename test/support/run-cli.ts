// runCli runs `ripple` in-process with captured streams; tests of commands use it instead of spawning.
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli/index.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(args: string[], stdin = ''): Promise<CliResult> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (c) => (stdout += c));
  err.on('data', (c) => (stderr += c));
  const code = await main(args, { stdin: Readable.from([stdin]), stdout: out, stderr: err });
  return { code, stdout, stderr };
}
