// version: prints the ripple version and the runtime it runs on.
import { ExitCode, type Command } from '../command.js';
import { VERSION } from '../main.js';

export const commands: Command[] = [
  {
    path: ['version'],
    summary: 'Print the ripple version',
    usage: 'Usage: ripple version\n\nPrints the ripple version and the Node.js runtime.\n',
    async run(_args, io) {
      io.stdout.write(`ripple ${VERSION} (node ${process.version})\n`);
      return ExitCode.Ok;
    },
  },
];
