// The mocha globals @web/test-runner provides (no @types/mocha in this project).
/** What `this` is in a test or hook written as a function: skip() ends it as skipped; timeout() reads its limit, timeout(ms) sets it. */
interface MochaContext {
  skip(): never;
  timeout(): number;
  timeout(ms: number): void;
}
type MochaFn = (this: MochaContext) => unknown;
declare function describe(title: string, suite: () => void): void;
declare function it(title: string, test: MochaFn): void;
declare function before(hook: MochaFn): void;
declare function after(hook: MochaFn): void;
declare function beforeEach(hook: MochaFn): void;
declare function afterEach(hook: MochaFn): void;
