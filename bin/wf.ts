#!/usr/bin/env node
/** The `wf` command (package bin). See docs/cli.md. */
import { main } from '../shared/cli/main.ts';

process.exitCode = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
});
