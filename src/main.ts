#!/usr/bin/env node
import { runPortcullis } from './cli/run-portcullis';

runPortcullis(process.argv.slice(2), process.env).then(
  (code) => {
    if (code !== 0) process.exit(code);
  },
  (e: unknown) => {
    process.stderr.write(`portcullis: ${e instanceof Error ? e.message.split('\n')[0] : 'unknown error'}\n`);
    process.exit(1);
  },
);
