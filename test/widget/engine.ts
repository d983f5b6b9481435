// The engine-neutral commands of test/engines/commands.mjs, as the tests call them.
import { executeServerCommand } from '@web/test-runner-commands';

export type Engine = 'chromium' | 'webkit' | 'firefox';

/** The engine this test file runs in, as the runner launched it. */
export function engine(): Promise<Engine> {
  return executeServerCommand<Engine, undefined>('engine');
}

/** Presses a key or a chord ('Tab', 'Shift+Tab', 'Space') as the keyboard would. */
export async function press(keys: string): Promise<void> {
  await executeServerCommand('press-keys', { keys });
}

/** Resizes the viewport; answers the size it got (windows have a minimum size in some engines). */
export function resize(width: number, height: number): Promise<{ width: number; height: number }> {
  return executeServerCommand('resize', { width, height });
}
