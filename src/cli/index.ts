// cli: the `ripple` command.
export { main, loadCommands, findCommand } from './main.js';
export { ExitCode, UsageError, parseFlags, type Command, type CommandIO } from './command.js';
