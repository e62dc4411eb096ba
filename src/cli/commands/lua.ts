// lua: `ripple lua --jsonl` evaluates EventSource scripts in the lua-oracle's JSON Lines format, so the same case
// file can be run through gopher-lua and through Ripple and the outputs diffed line by line.
import { createLuaRuntime, formatLuaCaseOutput, runLuaCase } from '../../lua/index.js';
import { ExitCode, UsageError, parseFlags, type Command } from '../command.js';

const usage = `Usage: ripple lua --jsonl [--instructions N] [--memory BYTES] < cases.jsonl > results.jsonl

Evaluates EventSource Lua scripts the way sveltos-agent does (run the script, set global obj, call
evaluate(obj), decode {matching, message}) in Ripple's sandboxed Lua, one JSON Lines case per input line.

Input line (the lua-oracle format; unknown fields are rejected):
  {"id": "...", "script": "function evaluate() ... end", "object": {...},
   "helpers": false, "timeoutMs": 1000, "numbers": "int64", "comment": "..."}
  helpers: true exposes base64Encode/base64Decode/getLabel/getAnnotation/getResource and require of
  json/strings/runes/sprig (Sprig with projectsveltos/lua-utils' conventions). timeoutMs and numbers are validated but Ripple limits instructions, not time,
  and keeps integers as integers in both number modes.

Output line, in input order:
  {"id":"...","matching":true,"message":"..."}        on success
  {"id":"...","error":"...","stage":"call"}           on failure; stage is input, load, call, result,
                                                      timeout (instruction budget) or memory (memory cap)

Flags:
  --jsonl            read cases from stdin, write results to stdout (required)
  --instructions N   instruction budget per evaluation (default 10000000)
  --memory BYTES     memory an evaluation may allocate (default 67108864)

Exit codes: 0 when every line was processed (failing cases are results, not errors), 2 for a bad command line.

Example:
  ripple lua --jsonl < testdata/lua/seeds.jsonl | diff - testdata/lua/seeds.expected.jsonl
`;

/** commands registers `ripple lua`. */
export const commands: Command[] = [
  {
    path: ['lua'],
    summary: 'Evaluate EventSource Lua cases in the lua-oracle JSON Lines format',
    usage,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        jsonl: { type: 'boolean' },
        instructions: { type: 'string' },
        memory: { type: 'string' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
      if (!values.jsonl) throw new UsageError('--jsonl is required (the only mode: cases on stdin, results on stdout)');
      const instructionLimit = positiveInt(values.instructions, '--instructions');
      const memoryLimitBytes = positiveInt(values.memory, '--memory');
      // The wall clock is read here, at the edge: os.time() and sprig.ago use it.
      const runtime = await createLuaRuntime({ instructionLimit, memoryLimitBytes, clock: { now: () => Date.now() } });
      let lineNo = 0;
      let pending = '';
      const handle = (line: string) => {
        lineNo++;
        if (line.trim() === '') return;
        io.stdout.write(formatLuaCaseOutput(runLuaCase(runtime, line, lineNo)) + '\n');
      };
      // Stream line by line so a long case file starts producing output at once.
      for await (const chunk of io.stdin) {
        pending += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          handle(pending.slice(0, nl));
          pending = pending.slice(nl + 1);
        }
      }
      if (pending !== '') handle(pending);
      runtime.close();
      return ExitCode.Ok;
    },
  },
];

function positiveInt(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag} must be a positive integer, got "${v}"`);
  return n;
}
