// Runs the CLI from the TypeScript sources (tests spawn it with `node --import tsx`).
import { runCli } from '../../src/cli/main.js';

await runCli(process.argv);
