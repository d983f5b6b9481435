// Which engines the widget and end-to-end suites run in, and where Debian puts them.
export const ENGINES = ['chromium', 'webkit', 'firefox'];

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The engines named in ENGINES (comma-separated), or all three. */
export function selectedEngines(env = process.env.ENGINES) {
  if (!env) return [...ENGINES];
  const named = env.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean);
  const unknown = named.filter((e) => !ENGINES.includes(e));
  if (unknown.length) throw new Error(`ENGINES names ${unknown.join(', ')}; it takes a comma-separated subset of ${ENGINES.join(', ')}`);
  return named;
}
