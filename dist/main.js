// The Action's entry (action.yml runs dist/main.js): everything happens in run().
import { run } from './run.js';

await run();
