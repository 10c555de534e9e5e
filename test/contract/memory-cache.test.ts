import { MemoryCache } from '../../src/adapters/memory/memory-cache.js';
import { runCacheContract } from './cache.contract.js';

runCacheContract('in-process LRU', async () => new MemoryCache());
