#!/usr/bin/env node
// ripple: runs the TypeScript sources through tsx's loader, so `npm ci` leaves a working command with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
