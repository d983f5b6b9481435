export type Engine = 'chromium' | 'webkit' | 'firefox';
export const ENGINES: readonly Engine[];
export const CHROMIUM_PATH: string;
export const FIREFOX_PATH: string;
export const CHROMIUM_ARGS: string[];
/** The engines named in ENGINES (comma-separated), or all three. */
export function selectedEngines(env?: string): Engine[];
