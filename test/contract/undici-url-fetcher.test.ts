import { describe } from 'vitest';
import { UndiciUrlFetcher } from '../../src/adapters/http-fetch/undici-url-fetcher.js';
import { runUrlFetcherContract } from './url-fetcher.contract.js';

describe('UndiciUrlFetcher', () => {
  runUrlFetcherContract((options) => new UndiciUrlFetcher({ ...options, userAgent: 'alexandria-test' }));
});
