/**
 * The preparing thread of the PostgreSQL index's inverted layout (piscina runs it;
 * `postgres-inverted-prepare.ts` sends the tasks): tokenises records and deflates their JSON.
 */
import { type PrepareResult, type PrepareTask, runPrepareTask } from './postgres-inverted-prepare.js';

export default function run(task: PrepareTask): PrepareResult {
  return runPrepareTask(task);
}
