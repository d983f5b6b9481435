// Each suite prints its figures as one line of JSON, prefixed so a soak log can be grepped.
export function printFigures(suite: string, figures: object): void {
  console.log(`RELIABILITY ${suite} ${JSON.stringify(figures)}`);
}

// The suites' waits are every test's (test/support/promises.mjs).
export { eachLimited, within } from '../../support/promises.mjs';
