import { runCli } from './cli/run.ts';

runCli(process.argv.slice(2), process.env).then((code) => {
  if (code !== undefined) process.exitCode = code;
});
