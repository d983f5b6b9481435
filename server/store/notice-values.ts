// What both stores write of a notice the same way: its id, and what one delivery attempt keeps.

import type { Notice, NoticeAttemptResult, NoticeChannel } from './types.js';

/** The longest error text kept (an attempt's error, a disabled endpoint's reason), in characters. */
export const MAX_ERROR_LENGTH = 500;

/** The notice id: the Standard Webhooks `webhook-id`, the same on every retry of one notice. */
export function noticeId(billId: string, channel: NoticeChannel): string {
  return channel === 'webhook' ? `msg_${billId}` : `msg_${billId}_${channel}`;
}

/** `text` cut to MAX_ERROR_LENGTH characters. */
export function clipError(text: string): string {
  return text.slice(0, MAX_ERROR_LENGTH);
}

/** One delivery attempt as both stores record it (SQLite stores the booleans as 0 and 1). */
export interface AttemptRecord {
  notice_id: string;
  channel: NoticeChannel;
  replay: boolean;
  at: number;
  /** Whole milliseconds, never negative. */
  duration_ms: number;
  ok: boolean;
  http_status: number | null;
  response: string | null;
  /** At most MAX_ERROR_LENGTH characters. */
  error: string | null;
}

/** What the delivery log keeps of an attempt of `notice`: a replay is the notice's (the claim's) word, not the attempt's. */
export function attemptRecord(notice: Pick<Notice, 'id' | 'channel' | 'replay'>, attempt: NoticeAttemptResult['attempt']): AttemptRecord {
  return {
    notice_id: notice.id, channel: notice.channel, replay: notice.replay, at: attempt.at,
    duration_ms: Math.max(0, Math.round(attempt.durationMs)), ok: attempt.ok, http_status: attempt.httpStatus,
    response: attempt.response, error: attempt.error?.slice(0, MAX_ERROR_LENGTH) ?? null,
  };
}
