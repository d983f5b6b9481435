// Structured logs, one JSON object a line. Every configured secret is masked wherever it appears,
// as written or escaped, so a careless field cannot leak the key, the signing secret or a webhook
// secret; every value is cut to 2 KB, so a hostile answer cannot fill the disk through the log.
import { createRedactor, truncate } from './redact.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger whose lines all carry `fields`. */
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  /** Where each line goes (default console.log). */
  write?: (line: string) => void;
  /** Strings never to print, in any escaped form. Values shorter than 4 characters are ignored. */
  secrets?: string[];
  /** Longest value printed, characters (default 2048); longer ones are cut. */
  maxValueLength?: number;
  level?: LogLevel;
  now?: () => number;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A field as it is printed: masked, then cut to `max` (masked first, so a cut never shows part of a secret). */
function printable(value: unknown, mask: (text: string) => string, max: number): unknown {
  if (value instanceof Error) {
    return { name: truncate(mask(value.name), max), message: truncate(mask(value.message), max) };
  }
  if (typeof value === 'string') return truncate(mask(value), max);
  if (value === null || typeof value !== 'object') return value;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return '[unprintable]';
  }
  if (json === undefined || json.length <= max) return value;
  return truncate(mask(json), max);
}

export function createLogger(options: LoggerOptions = {}, bound: LogFields = {}): Logger {
  const write = options.write ?? ((line: string) => console.log(line));
  const mask = createRedactor(options.secrets ?? []);
  const max = options.maxValueLength ?? 2048;
  const min = RANK[options.level ?? 'info'];
  const now = options.now ?? Date.now;

  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (RANK[level] < min) return;
    const entry: LogFields = { time: new Date(now()).toISOString(), level, msg: truncate(mask(msg), max) };
    for (const [k, v] of Object.entries(bound)) entry[k] = printable(v, mask, max);
    for (const [k, v] of Object.entries(fields ?? {})) entry[k] = printable(v, mask, max);
    write(mask(JSON.stringify(entry)));
  };

  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(options, { ...bound, ...fields }),
  };
}

/** A logger that drops everything (tests that do not look at logs). */
export const silentLogger: Logger = createLogger({ write: () => undefined });
