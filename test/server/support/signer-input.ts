import type { SignerAnswer } from '../../../server/upstream/types.js';

/** SignInput.send for a signer called outside a client: a scheme that needs its own request fails. */
export const noSend = (): Promise<SignerAnswer> => Promise.reject(new Error('no service behind this signer input'));
