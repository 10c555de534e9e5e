import { MemoryCircuitBreakers } from '../../src/adapters/memory/memory-circuit-breaker.js';
import { MemoryRateGates } from '../../src/adapters/memory/memory-rate-gate.js';
import { runUpstreamGuardsContract } from './upstream-guards.contract.js';

runUpstreamGuardsContract('in-process', (clock) => ({
  rateGates: new MemoryRateGates(clock),
  breakers: new MemoryCircuitBreakers(clock),
}));
