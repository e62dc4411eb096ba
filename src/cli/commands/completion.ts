// completion: `ripple completion bash|zsh|fish` prints a shell completion script for every command, its subcommands,
// flags and the values of enum flags (see ../completion.ts).
import { DEMOS } from '../../demos/index.js';
import { ExitCode, UsageError, oneOf, parseFlags, type Command } from '../command.js';
import { SHELLS, completionScript, completionTree } from '../completion.js';
import { loadCommands } from '../main.js';
import { LOG_LEVELS } from '../runtime.js';

const USAGE = `Usage: ripple completion bash|zsh|fish

Prints a completion script for the shell: commands and subcommands (with their summaries in zsh and fish), each
command's flags, and the values of flags that take one of a few (-o yaml, --demo loadbalancer, --log-level debug);
file names where a flag takes a FILE or DIR. The script is static: pressing TAB never starts ripple.

Exit codes: 0 printed; 2 no or an unknown shell.

Examples:
  source <(ripple completion bash)                                         # this bash session
  ripple completion bash > ~/.local/share/bash-completion/completions/ripple
  ripple completion zsh > "\${fpath[1]}/_ripple"                            # zsh, from the next shell on
  ripple completion fish > ~/.config/fish/completions/ripple.fish
`;

export const commands: Command[] = [
  {
    path: ['completion'],
    summary: 'Print a shell completion script (bash, zsh or fish)',
    usage: USAGE,
    async run(args, io) {
      const { positionals } = parseFlags(args, {});
      if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'name the shell: bash, zsh or fish' : `one shell only, not ${positionals.length}`);
      const shell = oneOf('the shell', positionals[0], SHELLS);
      const tree = completionTree(await loadCommands(), { demo: Object.keys(DEMOS), 'log-level': LOG_LEVELS });
      io.stdout.write(completionScript(shell, tree));
      return ExitCode.Ok;
    },
  },
];
