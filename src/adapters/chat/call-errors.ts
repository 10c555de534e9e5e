import { AppError } from '../../domain/errors.js';

/** The two ways a chat-model call ends that are not the model's failure: its caller, or its deadline. */
export interface CallSignals {
  /** The caller's signal: when it aborted, its reason is what the call throws. */
  request: AbortSignal | undefined;
  /** The call's own deadline. */
  deadline: AbortSignal;
  timeoutMs: number;
}

/**
 * What a failed call throws when it was stopped rather than failed: the caller's abort reason, a
 * `timeout` AppError at the deadline, or an AppError as it is. Undefined: a failure of the model,
 * for the adapter to map.
 */
export function stoppedCallError(error: unknown, signals: CallSignals): unknown {
  if (signals.request?.aborted) return signals.request.reason ?? error;
  if (signals.deadline.aborted) {
    return new AppError('timeout', `The chat model did not finish within ${signals.timeoutMs} ms`, {
      cause: error,
    });
  }
  if (error instanceof AppError) return error;
  return undefined;
}
