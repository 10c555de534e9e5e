import { MemoryJobQueue } from '../../src/adapters/memory/memory-job-queue.js';
import { runJobQueueContract } from './job-queue.contract.js';

runJobQueueContract('in-process', async (settings) => new MemoryJobQueue(settings));
