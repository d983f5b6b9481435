// Structured logs, one JSON object a line. Every configured secret is masked wherever it appears,
// so a careless field cannot leak the key, the signing secret or a webhook secret.

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
  /** Strings never to print. Values shorter than 4 characters are ignored. */
  secrets?: string[];
  level?: LogLevel;
  now?: () => number;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function describe(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}

export function createLogger(options: LoggerOptions = {}, bound: LogFields = {}): Logger {
  const write = options.write ?? ((line: string) => console.log(line));
  const secrets = (options.secrets ?? []).filter((s) => s.length >= 4);
  const min = RANK[options.level ?? 'info'];
  const now = options.now ?? Date.now;

  const mask = (line: string) => secrets.reduce((out, s) => out.split(s).join('[redacted]'), line);

  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (RANK[level] < min) return;
    const entry: LogFields = { time: new Date(now()).toISOString(), level, msg, ...bound };
    for (const [k, v] of Object.entries(fields ?? {})) entry[k] = describe(v);
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
