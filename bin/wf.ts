#!/usr/bin/env node
/** The `wf` command (package bin). See docs/cli.md. */
import { main } from '../shared/cli/main.ts';

// Ctrl-C ends `run list --watch` with exit 0 (other commands keep Node's default: Ctrl-C exits).
const interrupted = new AbortController();
if (process.argv.includes('--watch')) process.once('SIGINT', () => interrupted.abort());

process.exitCode = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
  isTTY: process.stdout.isTTY === true,
  signal: interrupted.signal,
});
