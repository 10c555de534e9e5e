import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.js';
import { runRateLimiterContract } from './rate-limiter.contract.js';

runRateLimiterContract('in-process', async (policy, clock) => new MemoryRateLimiter(policy, clock));
