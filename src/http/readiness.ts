import type { ProcessRole } from '../config/role.js';
import { AppError } from '../domain/errors.js';
import type { Capability, ReadinessProbe } from '../services/services.js';

/** What each role must be able to serve to be ready. */
const essentials: Record<ProcessRole, readonly Capability[]> = {
  all: ['reads'],
  api: ['reads'],
  worker: ['jobs'],
};

/** How long one probe may take before it counts as failed (a hung dependency must not hang /readyz). */
export const probeTimeoutMs = 2_000;

export interface Readiness {
  /** `ready`: everything answers; `degraded`: what the role needs answers, something else does not. */
  status: 'ready' | 'degraded' | 'unavailable';
  role: ProcessRole;
  checks: Record<string, string>;
  /** Why it is degraded or unavailable, in a sentence (absent when ready). */
  reason?: string;
}

async function outcome(probe: ReadinessProbe): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe.check(),
      new Promise((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new AppError('timeout', `no answer within ${probeTimeoutMs} ms`)),
          probeTimeoutMs,
        );
      }),
    ]);
    return 'ok';
  } catch (error) {
    return error instanceof AppError ? error.message : 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Readiness for the role this process plays (docs/decisions/0046): unavailable only when a check
 * that the role's essential work needs fails (a replica that cannot serve reads, a worker that
 * cannot take jobs); a dependency needed only for other work (the blob store for uploads, Redis
 * for shared rate limits, workers for parsing) degrades it, so a balancer keeps sending reads.
 */
export async function readinessOf(probes: readonly ReadinessProbe[], role: ProcessRole): Promise<Readiness> {
  const results = await Promise.all(probes.map(async (probe) => ({ probe, result: await outcome(probe) })));
  const checks: Record<string, string> = {};
  const blocking: string[] = [];
  const degrading: string[] = [];
  for (const { probe, result } of results) {
    checks[probe.name] = result;
    if (result === 'ok') continue;
    const needed = probe.neededFor ?? ['reads', 'writes', 'jobs'];
    const line = `${probe.name}: ${result} (needed for ${needed.join(', ')})`;
    if (needed.some((capability) => essentials[role].includes(capability))) blocking.push(line);
    else degrading.push(line);
  }
  if (blocking.length > 0) {
    return { status: 'unavailable', role, checks, reason: [...blocking, ...degrading].join('; ') };
  }
  if (degrading.length > 0) return { status: 'degraded', role, checks, reason: degrading.join('; ') };
  return { status: 'ready', role, checks };
}
