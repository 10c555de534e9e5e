// The `alexandria` command from the TypeScript sources, for benchmarks that start the real CLI
// (`node --import tsx bench/servers/cli.ts serve`), so they measure the code in the work tree.
import { runCli } from '../../src/cli/main.js';

await runCli(process.argv);
