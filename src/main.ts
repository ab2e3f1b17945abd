#!/usr/bin/env node
import { explain } from './composition/explain';
import { main } from './composition/main';

const argv = process.argv.slice(2);

if (argv[0] === 'explain') {
  process.exitCode = explain(argv.slice(1), process.env, (line) => process.stdout.write(`${line}\n`));
} else {
  main(argv, process.env).then(
    (code) => {
      if (code !== 0) process.exit(code);
    },
    (e: unknown) => {
      process.stderr.write(`Portcullis failed to start: ${e instanceof Error ? e.message : 'unknown error'}\n`);
      process.exit(1);
    },
  );
}
