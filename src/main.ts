#!/usr/bin/env node
import { main } from './composition/main';

main(process.argv.slice(2), process.env).then(
  (code) => {
    if (code !== 0) process.exit(code);
  },
  (e: unknown) => {
    process.stderr.write(`Portcullis failed to start: ${e instanceof Error ? e.message : 'unknown error'}\n`);
    process.exit(1);
  },
);
