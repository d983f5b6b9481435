// The sandbox's demo key pair: public knowledge, good against the sandbox only. The BFF takes them
// as its defaults for BILL_API_KEY and BILL_API_SECRET, so `npm start` works with no account.
export const SANDBOX_DEMO_KEY = 'sandbox-demo-key';
export const SANDBOX_DEMO_SECRET = 'sandbox-demo-secret';
/** The pair as loadConfig takes its defaults. */
export const SANDBOX_DEMO_CREDENTIALS = { key: SANDBOX_DEMO_KEY, secret: SANDBOX_DEMO_SECRET };
