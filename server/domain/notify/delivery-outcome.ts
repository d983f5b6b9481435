// What one delivery attempt of a notice comes to: delivered, failed (tried again on the schedule,
// or for the last time), or gone (a webhook endpoint answering 410 is disabled); what the delivery
// log records of it, and what the worker's log says.
import type { Logger, LogFields } from '../../log.js';
import type { ClaimedNotice } from '../../store/types.js';
import { WebhookRefused, type Posted } from './webhook-post.js';

/** An error as the delivery log and the worker's log show it: name, message and its cause's message. */
export function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return `${err.name}: ${err.message}${cause}`;
  }
  return String(err);
}

export interface DeliveryOutcome {
  result: 'delivered' | 'failed' | 'gone';
  /** The webhook endpoint answered 410 Gone: it is disabled until re-enabled in the admin. */
  gone: boolean;
  /** The delivery log's error text; null when delivered. */
  error: string | null;
  /** When the notice is due again: now for a 410 (it waits for the endpoint), null when it is not (delivered, a replay, or the schedule ended). */
  nextAttemptAt: number | null;
}

/**
 * `failure`: what the attempt threw (null: delivered); `posted`: what the merchant answered, if it
 * did; `backoff`: the delay after a number of failed tries (null: give up).
 */
export function deliveryOutcome(
  notice: Pick<ClaimedNotice, 'channel' | 'replay' | 'attempts'>, failure: unknown, posted: Posted | null,
  backoff: (attempt: number) => number | null, now: number,
): DeliveryOutcome {
  const gone = posted?.httpStatus === 410 && notice.channel === 'webhook';
  const error = failure === null ? null : failure instanceof WebhookRefused ? failure.message : describe(failure);
  // A replay leaves the schedule as it was; a scheduled try that failed waits for the next step.
  const next = failure === null || notice.replay ? null : backoff(notice.attempts);
  const nextAttemptAt = gone ? now : next === null ? null : now + Math.max(0, next);
  return { result: failure === null ? 'delivered' : gone ? 'gone' : 'failed', gone, error, nextAttemptAt };
}

/** The worker's log line of an attempt recorded as the `number`th of its notice. */
export function logDelivery(log: Logger, fields: LogFields, notice: Pick<ClaimedNotice, 'replay'>, outcome: DeliveryOutcome, number: number): void {
  const { error, nextAttemptAt } = outcome;
  if (outcome.result === 'delivered') {
    log.info('merchant notice delivered', { ...fields, number });
  } else if (!notice.replay && nextAttemptAt === null) {
    log.error('merchant notice failed for the last time: replay it from the admin', { ...fields, error });
  } else {
    log.warn('merchant notice failed', {
      ...fields, error, ...(nextAttemptAt === null ? {} : { nextAttemptAt: new Date(nextAttemptAt).toISOString() }),
    });
  }
}
