declare module 'qrcode/lib/core/qrcode.js' {
  export interface QrSymbol {
    modules: { size: number; data: Uint8Array };
    version: number;
  }
  export function create(data: string | { data: string; mode: 'byte' }[], options?: { errorCorrectionLevel?: 'L' | 'M' | 'Q' | 'H' }): QrSymbol;
}
