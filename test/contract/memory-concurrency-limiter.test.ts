import { MemoryConcurrencyLimiter } from '../../src/adapters/memory/memory-concurrency-limiter.js';
import { runConcurrencyLimiterContract } from './concurrency-limiter.contract.js';

runConcurrencyLimiterContract('memory', async (clock) => new MemoryConcurrencyLimiter(clock));
